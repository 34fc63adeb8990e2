import type { CodecResult } from "../measure/codec-bench.js";
import type { CaseResult } from "../measure/runner.js";
import { fmt3, textTable } from "../report/format.js";
import { median } from "../report/stats.js";

/**
 * The A/B gate of `--ci`: every case runs on the current tree and on the base tree (the parent
 * commit) in the same run, interleaved, and each row's current ÷ base ratio is judged. Both
 * sides share the machine, its CPU model and its load at that moment, so the gate holds on any
 * machine; the committed baseline is only a record.
 *
 * Repeats are paired (current run i with base run i, measured next to each other) and a row
 * regresses only when both of these are past the mode's limit:
 * - the median of its paired ratios (with 3 pairs, two must be past it, so one unlucky pair
 *   cannot fail CI), and
 * - the ratio of the best runs, current's best over base's best (fastest p50, most msgs/s or
 *   ops/s): noise on a shared machine only ever slows a run down, so a change that really costs
 *   time slows every run of it, while a tree that is as fast as its base has at least one run
 *   as good as the base's best. An A/A run here (the codec micro-benchmarks, whose JIT state
 *   differs per process) gave pairs of 0.535, 0.501 and 0.950 with no code change: the median
 *   alone failed, the best runs agreed.
 */

/** How far a row may move the wrong way before it regresses (current ÷ base, per mode). */
export const AB_LIMITS = {
  /** p50 latency, lower is better: fails above this. */
  latency: 1.5,
  /** msgs/s with 64 in flight, higher is better: fails below this. */
  throughput: 0.5,
  /** msgs/s one way, higher is better: fails below this. */
  stream: 0.5,
  /**
   * codec ops/s, higher is better: fails below this. Looser than the transports: two
   * clean-clone CI runs of code identical on both sides met codec rows at 0.535 (median; best
   * runs 0.95) and 0.509 (median; best runs 0.491, protobuf encode) — tinybench micro-benchmarks
   * of a few hundred ns per op, whose JIT state differs per process. 0.3 still fails a codec
   * made 3× slower.
   */
  codec: 0.3,
} as const;

/**
 * The verdict on one row. `info`: a hand-written baseline (bare node:net, bare grpc-js), shown
 * for context but not gated — it is not nearwire, and its A/A spread is the widest.
 */
export type AbStatus = "ok" | "faster" | "REGRESSED" | "new" | "gone" | "info";

/** One gated row. */
export interface AbRow {
  /** Case key (`latency:uds/raw/64B`) or codec key (`codec:raw/tick/encode`). */
  key: string;
  better: "lower" | "higher";
  /** The metric per repeat on each side (p50 ns, or msgs/s, or ops/s). */
  current: number[];
  base: number[];
  /** current ÷ base for each repeat that has both sides. */
  pairs: number[];
  /** Median of `pairs` (NaN when none). */
  ratio: number;
  /** Current's best run ÷ base's best run (NaN when a side has none). */
  bestRatio: number;
  limit: number;
  status: AbStatus;
}

/** Metric of one run of a case: p50 for latency, msgs/s otherwise. */
function metric(result: CaseResult): number[] {
  return result.runs.map((r) =>
    result.spec.mode === "latency" ? (r.latency?.p50Ns ?? Number.NaN) : r.msgsPerSec,
  );
}

/** Judges one row from its per-repeat values on both sides. */
export function judge(
  key: string,
  better: "lower" | "higher",
  limit: number,
  current: number[],
  base: number[],
): AbRow {
  const pairs: number[] = [];
  for (let i = 0; i < Math.min(current.length, base.length); i++) {
    const r = (current[i] as number) / (base[i] as number);
    if (Number.isFinite(r) && r > 0) pairs.push(r);
  }
  const ratio = pairs.length === 0 ? Number.NaN : median(pairs);
  const best = (values: number[]) => {
    const ok = values.filter((v) => Number.isFinite(v) && v > 0);
    if (ok.length === 0) return Number.NaN;
    return better === "lower" ? Math.min(...ok) : Math.max(...ok);
  };
  const bestRatio = best(current) / best(base);
  const past = (r: number) => (better === "lower" ? r > limit : r < limit);
  let status: AbStatus;
  if (current.length === 0) status = "gone";
  else if (pairs.length === 0) status = "new";
  else {
    if (past(ratio) && past(bestRatio)) status = "REGRESSED";
    else if (better === "lower" ? ratio < 1 / limit : ratio > 1 / limit) status = "faster";
    else status = "ok";
  }
  return { key, better, current, base, pairs, ratio, bestRatio, limit, status };
}

/** Pairs the current and base results of every case and codec job and judges each row. */
export function abRows(
  current: readonly CaseResult[],
  base: readonly CaseResult[],
  currentCodecs: readonly CodecResult[][],
  baseCodecs: readonly CodecResult[][],
): AbRow[] {
  const rows: AbRow[] = [];
  const baseByKey = new Map(base.map((b) => [b.spec.key, b]));
  for (const c of current) {
    const b = baseByKey.get(c.spec.key);
    const mode = c.spec.mode;
    const row = judge(
      c.spec.key,
      mode === "latency" ? "lower" : "higher",
      AB_LIMITS[mode],
      metric(c),
      b === undefined ? [] : metric(b),
    );
    if (c.spec.layer === "baseline" && row.pairs.length > 0) row.status = "info";
    rows.push(row);
  }
  const codecValues = (runs: readonly CodecResult[][]) => {
    const m = new Map<string, number[]>();
    for (const run of runs)
      for (const r of run)
        for (const [op, v] of [
          ["encode", r.encodeOpsPerSec],
          ["decode", r.decodeOpsPerSec],
        ] as const) {
          const k = `codec:${r.codec}/${r.message}/${op}`;
          m.set(k, [...(m.get(k) ?? []), v]);
        }
    return m;
  };
  const cur = codecValues(currentCodecs);
  const bas = codecValues(baseCodecs);
  for (const [k, v] of cur) rows.push(judge(k, "higher", AB_LIMITS.codec, v, bas.get(k) ?? []));
  return rows;
}

/** The gate's table for the terminal and the Markdown report. */
export function abTable(rows: readonly AbRow[]): string {
  return textTable(
    ["row", "better", "current ÷ base", "pairs", "best ÷ best", "limit", "status"],
    rows.map((r) => [
      r.key,
      r.better,
      Number.isNaN(r.ratio) ? "—" : fmt3(r.ratio),
      r.pairs.map(fmt3).join(" "),
      Number.isNaN(r.bestRatio) ? "—" : fmt3(r.bestRatio),
      `${r.better === "lower" ? "≤" : "≥"} ${fmt3(r.limit)}`,
      r.status,
    ]),
  );
}
