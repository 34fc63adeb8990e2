import type { AbRow } from "./ab-gate.js";
import type { CaseSpec } from "./case-spec.js";
import type { CodecResult } from "./codec-bench.js";
import type { MachineInfo } from "./machine.js";
import { comparisonKey, type MatrixInput } from "./matrix.js";
import type { Availability } from "./plugins.js";
import type { CaseResult } from "./runner.js";

/** Median of a non-empty list (mean of the middle two for even lengths); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Min and max of a list. */
export function spread(values: readonly number[]): [number, number] {
  return [Math.min(...values), Math.max(...values)];
}

/** A case reduced to the figures the reports show: medians over its runs, plus their spread. */
export interface CaseSummary {
  spec: CaseSpec;
  runs: number;
  error?: string;
  wireBytes: number;
  /** Latency percentiles, ns (median over runs); `maxNs` is the max over runs. */
  p50Ns?: number;
  p90Ns?: number;
  p99Ns?: number;
  p999Ns?: number;
  maxNs?: number;
  /** Latency samples recorded, summed over runs. */
  samples?: number;
  msgsPerSec: number;
  mbPerSec: number;
  clientCpuUsPerMsg: number;
  serverCpuUsPerMsg: number;
  /** V8 JS heap bytes the client allocated per message (median over runs), when measured. */
  clientHeapBytesPerMsg?: number;
  /** Min/max over runs of p50 (ns) and of msgs/s (only meaningful with repeats). */
  p50Spread?: [number, number];
  msgsPerSecSpread: [number, number];
  /**
   * This row against the row it is compared to (its baseline): p50 ÷ baseline p50 for
   * latency (lower is better), msgs/s ÷ baseline msgs/s otherwise (higher is better).
   */
  ratio?: { to: string; value: number };
}

/** Reduces every case result; ratios use the other summaries of the same run. */
export function summarise(results: readonly CaseResult[], input: MatrixInput): CaseSummary[] {
  const out = results.map((r): CaseSummary => {
    const runs = r.runs;
    const lat = runs.flatMap((x) => (x.latency ? [x.latency] : []));
    const s: CaseSummary = {
      spec: r.spec,
      runs: runs.length,
      wireBytes: runs[0]?.wireBytes ?? 0,
      msgsPerSec: median(runs.map((x) => x.msgsPerSec)),
      mbPerSec: median(runs.map((x) => x.mbPerSec)),
      clientCpuUsPerMsg: median(runs.map((x) => x.clientCpuUsPerMsg)),
      serverCpuUsPerMsg: median(runs.map((x) => x.serverCpuUsPerMsg)),
      msgsPerSecSpread:
        runs.length > 0 ? spread(runs.map((x) => x.msgsPerSec)) : [Number.NaN, Number.NaN],
    };
    if (r.error !== undefined) s.error = r.error;
    const heap = runs.flatMap((x) =>
      x.clientHeapBytesPerMsg === undefined ? [] : [x.clientHeapBytesPerMsg],
    );
    if (heap.length > 0) s.clientHeapBytesPerMsg = median(heap);
    if (lat.length > 0) {
      s.p50Ns = median(lat.map((l) => l.p50Ns));
      s.p90Ns = median(lat.map((l) => l.p90Ns));
      s.p99Ns = median(lat.map((l) => l.p99Ns));
      s.p999Ns = median(lat.map((l) => l.p999Ns));
      s.maxNs = Math.max(...lat.map((l) => l.maxNs));
      s.samples = lat.reduce((a, l) => a + l.count, 0);
      s.p50Spread = spread(lat.map((l) => l.p50Ns));
    }
    return s;
  });
  const byKey = new Map(out.map((s) => [s.spec.key, s]));
  for (const s of out) {
    const key = comparisonKey(s.spec, input);
    const base = key === undefined ? undefined : byKey.get(key);
    if (base === undefined || s.runs === 0 || base.runs === 0) continue;
    const value =
      s.spec.mode === "latency"
        ? (s.p50Ns ?? Number.NaN) / (base.p50Ns ?? Number.NaN)
        : s.msgsPerSec / base.msgsPerSec;
    if (Number.isFinite(value)) s.ratio = { to: base.spec.id, value };
  }
  return out;
}

/** Everything one run produced: the JSON report's shape. */
export interface BenchReport {
  tool: "nearwire-bench";
  formatVersion: 1;
  startedAt: string;
  finishedAt: string;
  /** The command line, as typed (argv after node). */
  command: string[];
  settings: {
    durationMs: number;
    warmupMs: number;
    repeat: number;
    pin: boolean;
    seed: number;
    profile: "default" | "full" | "ci" | "custom";
  };
  machine: MachineInfo;
  availability: Availability[];
  /** Transports and codecs that were found. */
  found: MatrixInput;
  /** False when `@nearwire/bench-messages` was missing and JSON stand-in messages were used. */
  messagesFromPackage: boolean;
  codecs: CodecResult[];
  /** Raw runs of every case (every number, including the HDR histograms). */
  cases: CaseResult[];
  summaries: CaseSummary[];
  /** The A/B gate of `--ci`: this tree against the base tree, row by row. */
  ab?: {
    base: { rev: string; sha?: string };
    limits: Readonly<Record<string, number>>;
    rows: AbRow[];
  };
}
