import assert from "node:assert/strict";
import { test } from "node:test";
import { abRows } from "../src/ci/ab-gate.js";
import { parseBenchArgs } from "../src/cli/args.js";
import { makeCase } from "../src/measure/case-spec.js";
import { GO_TRANSPORTS } from "../src/measure/go-case.js";
import { resolveGoRows } from "../src/measure/go-rows.js";
import { buildCiMatrix, buildMatrix, type MatrixInput } from "../src/measure/matrix.js";
import type { RunResult } from "../src/measure/run-result.js";
import { seedComparison } from "../src/report/seed-comparison.js";
import { fixtureReport } from "./support/fixture-report.js";

const input: MatrixInput = {
  transports: [
    { id: "uds", layer: "rpc", baseline: "bare-net-uds" },
    { id: "grpc-uds", layer: "rpc", baseline: "bare-grpc-js" },
    { id: "grpc-tcp", layer: "rpc", baseline: "bare-grpc-js-tcp" },
  ],
  codecs: ["json", "raw"],
  go: true,
};
const goKeys = (keys: string[]) => keys.filter((k) => /:go-/.test(k)).sort();

test("go rows: latency at every size and throughput at the smallest, beside the baselines; no streams", () => {
  const keys = buildMatrix(parseBenchArgs([]), input).map((c) => c.key);
  assert.deepEqual(goKeys(keys), [
    "latency:go-grpc-tcp/bytes/64B",
    "latency:go-grpc-uds/bytes/64B",
    "latency:go-grpc-uds/bytes/64KiB",
    "latency:go-uds/bytes/64B",
    "latency:go-uds/bytes/64KiB",
    "throughput:go-grpc-tcp/bytes/64B",
    "throughput:go-grpc-uds/bytes/64B",
    "throughput:go-uds/bytes/64B",
  ]);
  const cases = buildMatrix(parseBenchArgs([]), input);
  assert.ok(
    cases.filter((c) => c.transport.startsWith("go-")).every((c) => c.layer === "baseline"),
  );
  const full = buildMatrix(parseBenchArgs(["--full"]), input).map((c) => c.key);
  assert.ok(full.includes("latency:go-grpc-tcp/bytes/1MiB"), "--full: every size");
  assert.equal(
    full.some((k) => k.startsWith("stream:go-")),
    false,
  );
  const without = buildMatrix(parseBenchArgs([]), { ...input, go: false }).map((c) => c.key);
  assert.deepEqual(goKeys(without), [], "no go rows when Go is not offered");
});

test("go rows: --filter and --transports select them", () => {
  const filtered = buildMatrix(
    parseBenchArgs(["--filter", "^(latency|throughput):(go-|uds/raw)", "--sizes", "64"]),
    input,
  ).map((c) => c.key);
  assert.deepEqual(goKeys(filtered), [
    "latency:go-grpc-tcp/bytes/64B",
    "latency:go-grpc-uds/bytes/64B",
    "latency:go-uds/bytes/64B",
    "throughput:go-grpc-tcp/bytes/64B",
    "throughput:go-grpc-uds/bytes/64B",
    "throughput:go-uds/bytes/64B",
  ]);
  assert.ok(filtered.includes("latency:uds/raw/64B"));
  assert.ok(filtered.includes("latency:bare-net-uds/bytes/64B"), "the compared row is added");
  const byTransport = buildMatrix(parseBenchArgs(["--transports", "go", "--sizes", "64"]), input);
  assert.deepEqual(
    [...new Set(byTransport.map((c) => c.transport))].sort(),
    [...GO_TRANSPORTS].sort(),
  );
});

test("go rows never enter the CI matrix, and would be info rows of the A/B gate", () => {
  const ci = buildCiMatrix(input);
  assert.equal(
    ci.some((c) => c.transport.startsWith("go-")),
    false,
  );
  const spec = makeCase({
    mode: "latency",
    layer: "baseline",
    transport: "go-uds",
    codec: "bytes",
    message: "chunk",
    payload: "64B",
    payloadBytes: 64,
    inFlight: 1,
  });
  const run = { latency: { p50Ns: 50_000 }, msgsPerSec: 1 } as RunResult;
  const [row] = abRows([{ spec, runs: [run] }], [{ spec, runs: [run] }], [], []);
  assert.ok(row);
  assert.equal(row.status, "info");
});

test("resolveGoRows: without go on PATH the go rows are dropped with one line naming apt-get", () => {
  const cases = buildMatrix(parseBenchArgs(["--sizes", "64"]), input);
  const r = resolveGoRows(cases, false, { PATH: "/nonexistent" });
  assert.equal(
    r.cases.some((c) => c.transport.startsWith("go-")),
    false,
  );
  assert.equal(r.cases.length, cases.length - 6);
  assert.match(
    r.line ?? "",
    /go-\* rows skipped \(go not found on PATH\); to measure them: apt-get install golang-go golang-google-grpc-dev golang-google-protobuf-dev/,
  );
  assert.ok(r.availability);
  assert.equal(r.availability.status, "absent");
  assert.equal(r.binary, undefined);
  const none = resolveGoRows(
    cases.filter((c) => !c.transport.startsWith("go-")),
    true,
    { PATH: "/nonexistent" },
  );
  assert.equal(none.line, undefined, "no line when no go row was selected");
});

test("the published Go tables, reproduced: go rows measured here sit beside nearwire's", () => {
  const r = fixtureReport();
  const goRow = (transport: string, p50: number, rate: number) => {
    const spec = (mode: "latency" | "throughput") =>
      makeCase({
        mode,
        layer: "baseline",
        transport,
        codec: "bytes",
        message: "chunk",
        payload: "64B",
        payloadBytes: 64,
        inFlight: mode === "throughput" ? 64 : 1,
      });
    return [
      { ...r.summaries[0], spec: spec("latency"), runs: 1, p50Ns: p50, p99Ns: 2 * p50 },
      { ...r.summaries[0], spec: spec("throughput"), runs: 1, msgsPerSec: rate },
    ];
  };
  const before = seedComparison(r).ipc;
  assert.match(before.note, /No go-\* rows: Go is not installed here/);
  r.summaries.push(
    ...(goRow("go-uds", 50_000, 190_000) as typeof r.summaries),
    ...(goRow("go-grpc-uds", 100_000, 55_000) as typeof r.summaries),
  );
  const { ipc } = seedComparison(r);
  const ids = ipc.rows.map((x) => x[4]);
  assert.ok(ids.indexOf("go-uds/bytes/64B") > ids.indexOf("bare-net-uds/bytes/64B"));
  const grpc = ipc.rows.find((x) => x[4] === "go-grpc-uds/bytes/64B");
  assert.ok(grpc);
  assert.deepEqual(grpc.slice(0, 4), ["gRPC over UDS", "47 µs", "389 µs", "0.89 M QPS"]);
  assert.deepEqual(grpc.slice(5), ["100 µs", "200 µs", "55.0 k"]);
  assert.match(ipc.note, /go-\* rows are Go on this machine, in this run/);
});
