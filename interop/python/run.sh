#!/usr/bin/env bash
# Runs the whole Python interop check: PROTOCOL.md vectors (offline and live), Python client ->
# nearwire server, nearwire client -> Python server (and both controls), graceful shutdown.
# Hard limit 58 s (the whole process group is killed then). Exit 0 only if every step passed.
set -u
if [ -z "${PYSPEC_INNER:-}" ]; then
  PYSPEC_INNER=1 exec timeout -k 2 58 bash "$0" "$@"
fi
cd "$(dirname "$0")"
T0=$(date +%s.%N)
OUT=$(mktemp -d /tmp/pyspec-run.XXXXXX)
N=/tmp/pyspec-$$-node
P=/tmp/pyspec-$$-py
cleanup() {
  for pid in ${NODE_PID:-} ${PY_PID:-}; do kill "$pid" 2>/dev/null; done
  rm -f "$N"-*.sock "$P"-*.sock
}
trap cleanup EXIT

node node-server.mjs "$N-main.sock" "$N-limits.sock" "$N-maxconn.sock" 50000 >"$OUT/node-server.log" 2>&1 &
NODE_PID=$!
python3 -u py_server.py "$P-main.sock" "$P-limits.sock" 50 "$P-bad" >"$OUT/py-server.log" 2>&1 &
PY_PID=$!
for _ in $(seq 100); do
  grep -q ready "$OUT/node-server.log" 2>/dev/null && grep -q ready "$OUT/py-server.log" 2>/dev/null && break
  sleep 0.1
done
if ! grep -q ready "$OUT/node-server.log" || ! grep -q ready "$OUT/py-server.log"; then
  echo "servers did not start"; cat "$OUT"/*.log; exit 1
fi

# step NAME CMD...: runs a step with a time limit, output to $OUT/NAME.txt
step() {
  local name=$1; shift
  timeout -k 1 40 "$@" >"$OUT/$name.txt" 2>&1
  echo $? >"$OUT/$name.rc"
}
lane_node() {  # everything that talks to the nearwire server, in order (they share its event log)
  step 1-vectors-vs-nearwire python3 test_vectors.py --server "nearwire=$N-main.sock"
  step 2-python-client-vs-nearwire-server python3 interop_client.py --label py-client/nearwire-server \
    --main "$N-main.sock" --limits "$N-limits.sock" --maxconn "$N-maxconn.sock" --impl node
  step 3-control-nearwire-client-vs-nearwire-server node node-client.mjs nearwire-client/nearwire-server \
    "$N-main.sock" node
}
lane_py() {
  step 4-vectors-vs-python python3 test_vectors.py --server "python=$P-main.sock"
  step 5-nearwire-client-vs-python-server node node-client.mjs nearwire-client/py-server \
    "$P-main.sock" python "$P-bad"
  step 6-control-python-client-vs-python-server python3 interop_client.py --label py-client/py-server \
    --main "$P-main.sock" --limits "$P-limits.sock" --impl python
}
lane_node & A=$!
lane_py & B=$!
wait $A $B
# §4.3 graceful shutdown, last (SIGTERM to each server, by PID)
step 7-shutdown-nearwire-server python3 interop_client.py --label shutdown/nearwire-server \
  --main "$N-main.sock" --only shutdown --shutdown-pid "$NODE_PID"
step 8-shutdown-python-server python3 interop_client.py --label shutdown/py-server \
  --main "$P-main.sock" --only shutdown --shutdown-pid "$PY_PID"
for pid in $NODE_PID $PY_PID; do
  for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
done

echo "== nearwire Python interop ($(cd ../.. && git rev-parse --short HEAD)) =="
fail=0; tp=0; tf=0
for f in "$OUT"/[0-9]*.txt; do
  name=$(basename "$f" .txt); rc=$(cat "$OUT/$name.rc")
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$f" | tail -1)
  [ -z "$line" ] && line="no result line"
  printf '%-48s %-22s rc=%s\n' "$name" "$line" "$rc"
  if [ "$rc" != 0 ]; then
    fail=1
    grep -E 'FAIL|Error|Traceback' "$f" | head -20 | sed 's/^/    /'
  fi
  p=$(echo "$line" | awk '{print $1}'); q=$(echo "$line" | awk '{print $3}')
  [[ "$p" =~ ^[0-9]+$ ]] && tp=$((tp + p)); [[ "$q" =~ ^[0-9]+$ ]] && tf=$((tf + q))
done
echo "-- observations (info lines: what the spec leaves open, recorded, not checked) --"
for f in "$OUT"/[0-9]*.txt; do
  grep -h '  info  ' "$f" | cut -c1-320 | sed "s/^  info  /[$(basename "$f" .txt | cut -c1)] /"
done
echo "time: $(echo "$(date +%s.%N) - $T0" | bc) s"
echo "total: $tp passed, $tf failed"
if [ "$fail" = 0 ] && [ "$tf" = 0 ]; then
  rm -rf "$OUT"
  exit 0
fi
echo "logs kept in $OUT"
exit 1
