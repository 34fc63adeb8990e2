import type { CodecResult } from "../measure/codec-bench.js";
import { engineTargetsTable } from "./engine-targets.js";
import { fmt3, fmtBytes, fmtCount, fmtNs, fmtRatio } from "./format.js";
import type { CaseSummary } from "./summary.js";
import type { Table } from "./table.js";
import { DOUBT_LEGEND, doubtCell, trusted } from "./trust.js";

/** The ratio cell; `~` marks an unstable row (its runs disagree; see the spread table). */
const ratioCell = (s: CaseSummary) =>
  s.ratio
    ? `${s.unstable ? "~" : ""}${fmtRatio(s.ratio.value)} ${s.ratio.to}`
    : s.unstable
      ? "~"
      : "";
const cpu = (n: number) => fmt3(n);

/**
 * `t` with a last `flags` column (`⚠ unsteady`, …) and the legend in its note, when one of its
 * rows is flagged (see trust.ts); `t` unchanged otherwise. `picked[i]` is the row of `t.rows[i]`.
 */
function withFlags(t: Table, picked: readonly CaseSummary[]): Table {
  if (picked.every(trusted)) return t;
  const out: Table = {
    ...t,
    note: `${t.note} ${DOUBT_LEGEND}`,
    headers: [...t.headers, "flags"],
    rows: t.rows.map((r, i) => [...r, doubtCell(picked[i] as CaseSummary)]),
  };
  if (t.values !== undefined) out.values = t.values.map((v) => [...v, undefined]);
  return out;
}

/** Codec table: every codec × message, with ratios to json. */
export function codecTable(results: readonly CodecResult[]): Table {
  const json = new Map(results.filter((r) => r.codec === "json").map((r) => [r.message, r]));
  return {
    title: "Codecs (tinybench, one process per codec)",
    note: "ops/s = median of tinybench samples (each a batch of calls); ×json = this codec's ops/s ÷ json's. Encode returns fresh bytes (what `codec.encode` costs a caller); in place encodes into a reused buffer with room to spare (`encodeIntoRange`/`encodeInto`, what the RPC engine does when the transport lends its send buffer), — where the codec cannot.",
    headers: [
      "codec/message",
      "bytes",
      "encode ops/s",
      "decode ops/s",
      "in place enc ops/s",
      "enc ×json",
      "dec ×json",
      "rme enc/dec",
    ],
    rows: results.map((r) => {
      const j = json.get(r.message);
      return [
        `${r.codec}/${r.message}`,
        String(r.encodedBytes),
        fmtCount(r.encodeOpsPerSec),
        fmtCount(r.decodeOpsPerSec),
        r.encodeInPlaceOpsPerSec === undefined ? "—" : fmtCount(r.encodeInPlaceOpsPerSec),
        j ? fmtRatio(r.encodeOpsPerSec / j.encodeOpsPerSec) : "—",
        j ? fmtRatio(r.decodeOpsPerSec / j.decodeOpsPerSec) : "—",
        `±${r.encodeRme.toFixed(1)}% / ±${r.decodeRme.toFixed(1)}%`,
      ];
    }),
    values: results.map((r) => {
      const j = json.get(r.message);
      return [
        undefined,
        r.encodedBytes,
        r.encodeOpsPerSec,
        r.decodeOpsPerSec,
        r.encodeInPlaceOpsPerSec,
        j ? r.encodeOpsPerSec / j.encodeOpsPerSec : undefined,
        j ? r.decodeOpsPerSec / j.decodeOpsPerSec : undefined,
        Math.max(r.encodeRme, r.decodeRme),
      ];
    }),
  };
}

/** V8 JS heap bytes allocated per message by the client (see heap-per-call.ts), or "—". */
function heapCell(bytes: number | undefined): string {
  return bytes === undefined ? "—" : fmtBytes(Math.round(bytes));
}

/** Latency table: one call in flight. */
export function latencyTable(rows: readonly CaseSummary[]): Table {
  const picked = rows.filter((s) => s.spec.mode === "latency");
  return withFlags(latencyRows(picked), picked);
}

function latencyRows(picked: readonly CaseSummary[]): Table {
  return {
    title: "Latency (round trip, one call in flight)",
    note: "Every call recorded in an HDR histogram; medians over repeats (max = max over repeats). CPU = user+system µs per round trip. heap/msg = bytes the client allocated on the V8 JS heap per call (GC accounting; Buffer backing stores not included; go-* rows: the Go heap, runtime.MemStats). Ratio = p50 ÷ the compared row's p50 (lower is better).",
    headers: [
      "case",
      "wire",
      "p50",
      "p90",
      "p99",
      "p99.9",
      "max",
      "samples",
      "cpu client",
      "cpu server",
      "heap/msg client",
      "p50 vs",
    ],
    rows: picked.map((s) =>
      s.error !== undefined && s.runs === 0
        ? [s.spec.id, "", `failed: ${s.error.slice(0, 80)}`, "", "", "", "", "", "", "", "", ""]
        : [
            s.spec.id,
            fmtBytes(s.wireBytes),
            fmtNs(s.p50Ns),
            fmtNs(s.p90Ns),
            fmtNs(s.p99Ns),
            fmtNs(s.p999Ns),
            fmtNs(s.maxNs),
            fmtCount(s.samples),
            cpu(s.clientCpuUsPerMsg),
            cpu(s.serverCpuUsPerMsg),
            heapCell(s.clientHeapBytesPerMsg),
            ratioCell(s),
          ],
    ),
    values: picked.map((s) => [
      undefined,
      s.wireBytes,
      s.p50Ns,
      s.p90Ns,
      s.p99Ns,
      s.p999Ns,
      s.maxNs,
      s.samples,
      s.clientCpuUsPerMsg,
      s.serverCpuUsPerMsg,
      s.clientHeapBytesPerMsg,
      s.ratio?.value,
    ]),
  };
}

/** Throughput tables: many calls in flight, and one-way streaming. */
export function flowTable(rows: readonly CaseSummary[], mode: "throughput" | "stream"): Table {
  const picked = rows.filter((s) => s.spec.mode === mode);
  return withFlags(flowRows(picked, mode), picked);
}

function flowRows(picked: readonly CaseSummary[], mode: "throughput" | "stream"): Table {
  const lat = mode === "throughput";
  return {
    title: lat ? "Throughput (64 calls in flight)" : "One-way streaming (server → client)",
    note: lat
      ? "msgs/s = completed round trips per second; MB/s = payload one way. Ratio = msgs/s ÷ the compared row's (higher is better)."
      : "msgs/s received by the client; RPC rows use a server-streaming call, channel and bare rows raw frames. Ratio = msgs/s ÷ the compared row's (higher is better).",
    headers: [
      "case",
      "wire",
      "msgs/s",
      "MB/s",
      ...(lat ? ["p50", "p99"] : []),
      "cpu client",
      "cpu server",
      "heap/msg client",
      "msgs/s vs",
    ],
    rows: picked.map((s) =>
      s.error !== undefined && s.runs === 0
        ? [
            s.spec.id,
            "",
            `failed: ${s.error.slice(0, 80)}`,
            "",
            ...(lat ? ["", ""] : []),
            "",
            "",
            "",
            "",
          ]
        : [
            s.spec.id,
            fmtBytes(s.wireBytes),
            fmtCount(s.msgsPerSec),
            fmt3(s.mbPerSec),
            ...(lat ? [fmtNs(s.p50Ns), fmtNs(s.p99Ns)] : []),
            cpu(s.clientCpuUsPerMsg),
            cpu(s.serverCpuUsPerMsg),
            heapCell(s.clientHeapBytesPerMsg),
            ratioCell(s),
          ],
    ),
    values: picked.map((s) => [
      undefined,
      s.wireBytes,
      s.msgsPerSec,
      s.mbPerSec,
      ...(lat ? [s.p50Ns, s.p99Ns] : []),
      s.clientCpuUsPerMsg,
      s.serverCpuUsPerMsg,
      s.clientHeapBytesPerMsg,
      s.ratio?.value,
    ]),
  };
}

/** Spread over repeats: min–max of p50 and of msgs/s per case (only with --repeat > 1). */
export function spreadTable(rows: readonly CaseSummary[]): Table {
  const picked = rows.filter((s) => s.runs > 1);
  return {
    title: "Spread over repeated runs",
    note: "min – max over the repeats of each case (fresh processes each time); the tables above show medians. ratio min – max pairs run i with run i of the compared row. unstable = the ratio range crosses 1.0 (one run faster, another slower) or the row's own runs spread more than 2× (p50 for latency, msgs/s otherwise): not a result; marked ~ in the tables above.",
    headers: [
      "case",
      "mode",
      "runs",
      "p50 min – max",
      "msgs/s min – max",
      "ratio min – max",
      "stable",
    ],
    rows: picked.map((s) => [
      s.spec.id,
      s.spec.mode,
      String(s.runs),
      s.p50Spread ? `${fmtNs(s.p50Spread[0])} – ${fmtNs(s.p50Spread[1])}` : "—",
      `${fmtCount(s.msgsPerSecSpread[0])} – ${fmtCount(s.msgsPerSecSpread[1])}`,
      s.ratioRange ? `${fmtRatio(s.ratioRange[0])} – ${fmtRatio(s.ratioRange[1])}` : "—",
      s.unstable ? "~ unstable" : "ok",
    ]),
    values: picked.map((s) => [
      undefined,
      undefined,
      s.runs,
      s.p50Spread?.[0],
      s.msgsPerSecSpread[0],
      s.ratioRange?.[0],
      undefined,
    ]),
  };
}

/** Every table with at least one row, in report order. */
export function allTables(codecs: readonly CodecResult[], rows: readonly CaseSummary[]): Table[] {
  return [
    codecTable(codecs),
    latencyTable(rows),
    flowTable(rows, "throughput"),
    flowTable(rows, "stream"),
    spreadTable(rows),
    engineTargetsTable(rows),
  ].filter((t) => t.rows.length > 0);
}
