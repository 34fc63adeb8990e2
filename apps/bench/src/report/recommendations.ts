import type { CodecResult } from "../measure/codec-bench.js";
import { fmt3, fmtBytes, fmtCount, fmtNs, fmtRatio } from "./format.js";
import type { CaseSummary } from "./summary.js";
import { trusted } from "./trust.js";

/** One "what to pick" answer of the HTML report's summary. */
export interface Recommendation {
  /** What it optimises: `Latency`, `Throughput`, `CPU`, … */
  goal: string;
  /** The pick: a case id (`shm-ring-spin/raw/64B`) or a codec. */
  pick: string;
  /** The figure it wins on, formatted. */
  figure: string;
  /** Other figures of the pick and the runner-up with a different transport (or codec). */
  detail: string;
}

/** A row that measured and can be trusted (see trust.ts): flagged rows are never a pick. */
const ok = (s: CaseSummary) => s.runs > 0 && s.error === undefined && trusted(s);
/** Cross-process RPC rows: what a user chooses between (not engine, channel or baseline rows). */
const rpc = (s: CaseSummary) => ok(s) && s.spec.layer === "rpc" && s.spec.transport !== "memory";
const small = (s: CaseSummary) =>
  s.spec.message === "tick" || (s.spec.message === "chunk" && s.spec.payloadBytes <= 64);
const cpuPerMsg = (s: CaseSummary) => s.clientCpuUsPerMsg + s.serverCpuUsPerMsg;

/** The best row by `score` (lower is better) and the best row of another transport. */
function best(
  rows: readonly CaseSummary[],
  score: (s: CaseSummary) => number | undefined,
): [CaseSummary, CaseSummary | undefined] | undefined {
  const scored = rows
    .map((s) => ({ s, v: score(s) }))
    .filter((x): x is { s: CaseSummary; v: number } => x.v !== undefined && Number.isFinite(x.v))
    .sort((a, b) => a.v - b.v);
  const first = scored[0];
  if (first === undefined) return undefined;
  return [first.s, scored.find((x) => x.s.spec.transport !== first.s.spec.transport)?.s];
}

/**
 * The summary at the top of the HTML report: which transport and codec to pick for latency,
 * throughput, bulk data and CPU (among the cross-process RPC rows of this run that nothing
 * casts doubt on), and which codec is fastest. Goals without data are left out.
 */
export function recommend(
  rows: readonly CaseSummary[],
  codecs: readonly CodecResult[],
): Recommendation[] {
  const out: Recommendation[] = [];
  const lat = rows.filter((s) => rpc(s) && s.spec.mode === "latency" && small(s));
  const l = best(lat, (s) => s.p50Ns);
  if (l) {
    const [p, r] = l;
    out.push({
      goal: "Latency (small messages)",
      pick: p.spec.id,
      figure: `p50 ${fmtNs(p.p50Ns)}`,
      detail: `p99 ${fmtNs(p.p99Ns)}, ${fmt3(cpuPerMsg(p))} µs CPU per call (both sides).${r ? ` Next transport: ${r.spec.id}, p50 ${fmtNs(r.p50Ns)}.` : ""}`,
    });
  }
  const sockets = best(
    lat.filter((s) => !s.spec.transport.startsWith("shm-ring")),
    (s) => s.p50Ns,
  );
  if (sockets && l && sockets[0] !== l[0]) {
    const [p, r] = sockets;
    out.push({
      goal: "Latency over a socket (no native addon)",
      pick: p.spec.id,
      figure: `p50 ${fmtNs(p.p50Ns)}`,
      detail: `p99 ${fmtNs(p.p99Ns)}${p.ratio ? `, ${fmtRatio(p.ratio.value)} ${p.ratio.to}` : ""}.${r ? ` Next transport: ${r.spec.id}, p50 ${fmtNs(r.p50Ns)}.` : ""}`,
    });
  }
  const cpu = best(lat, cpuPerMsg);
  if (cpu) {
    const [p, r] = cpu;
    out.push({
      goal: "CPU per call",
      pick: p.spec.id,
      figure: `${fmt3(cpuPerMsg(p))} µs`,
      detail: `client + server CPU per round trip, one call in flight; p50 ${fmtNs(p.p50Ns)}.${r ? ` Next transport: ${r.spec.id}, ${fmt3(cpuPerMsg(r))} µs.` : ""}`,
    });
  }
  const thrAll = rows.filter((s) => rpc(s) && s.spec.mode === "throughput");
  const smallest = Math.min(...thrAll.map((s) => s.spec.payloadBytes));
  const t = best(
    thrAll.filter((s) => s.spec.payloadBytes === smallest),
    (s) => -s.msgsPerSec,
  );
  if (t) {
    const [p, r] = t;
    out.push({
      goal: "Throughput (64 calls in flight)",
      pick: p.spec.id,
      figure: `${fmtCount(p.msgsPerSec)} msgs/s`,
      detail: `${fmt3(cpuPerMsg(p))} µs CPU per message.${r ? ` Next transport: ${r.spec.id}, ${fmtCount(r.msgsPerSec)} msgs/s.` : ""}${p.ratio ? ` ${fmtRatio(p.ratio.value)} ${p.ratio.to}.` : ""}`,
    });
  }
  const bulkAll = rows.filter(
    (s) => rpc(s) && s.spec.message === "chunk" && s.spec.mode !== "latency",
  );
  const largest = Math.max(...bulkAll.map((s) => s.spec.payloadBytes));
  const b = best(
    bulkAll.filter((s) => s.spec.payloadBytes === largest),
    (s) => -s.mbPerSec,
  );
  if (b) {
    const [p, r] = b;
    out.push({
      goal: `Bulk data (${fmtBytes(largest)} payloads)`,
      pick: p.spec.id,
      figure: `${fmt3(p.mbPerSec)} MB/s`,
      detail: `${p.spec.mode === "stream" ? "one-way stream" : "64 calls in flight"}.${r ? ` Next transport: ${r.spec.id}, ${fmt3(r.mbPerSec)} MB/s.` : ""}`,
    });
  }
  const tick = codecs.filter((c) => c.message === "tick");
  const perMsgNs = (c: CodecResult) => 1e9 / c.encodeOpsPerSec + 1e9 / c.decodeOpsPerSec;
  const fastest = [...tick].sort((a, b) => perMsgNs(a) - perMsgNs(b));
  const c = fastest[0];
  if (c) {
    const smallestEnc = [...tick].sort((a, b) => a.encodedBytes - b.encodedBytes)[0];
    const next = fastest[1];
    out.push({
      goal: "Codec (Tick)",
      pick: c.codec,
      figure: `${fmtNs(perMsgNs(c))} encode + decode`,
      detail: `${c.encodedBytes} B on the wire.${next ? ` Next: ${next.codec}, ${fmtNs(perMsgNs(next))}.` : ""}${smallestEnc && smallestEnc.codec !== c.codec ? ` Smallest: ${smallestEnc.codec}, ${smallestEnc.encodedBytes} B.` : ""}`,
    });
  }
  return out;
}
