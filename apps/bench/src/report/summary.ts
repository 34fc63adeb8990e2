import type { AbRow } from "../ci/ab-gate.js";
import type { CaseSpec } from "../measure/case-spec.js";
import type { CodecResult } from "../measure/codec-bench.js";
import type { MachineInfo } from "../measure/machine.js";
import { comparisonKey, type MatrixInput } from "../measure/matrix.js";
import type { Availability } from "../measure/plugins.js";
import type { RunResult } from "../measure/run-result.js";
import type { CaseResult } from "../measure/runner.js";
import type { TransferReport } from "../transfer/transfer-bench.js";
import { median, spread } from "./stats.js";

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
  /**
   * Min–max of the ratio over paired runs (run i of this row ÷ run i of the compared row), when
   * both rows have ≥ 2 runs.
   */
  ratioRange?: [number, number];
  /**
   * True when the row is not a result: its ratio range crosses 1.0 (one run says faster, another
   * slower) or its own runs spread more than {@link UNSTABLE_SPREAD}× (max ÷ min of its metric).
   * Only set on rows with ≥ 2 runs.
   */
  unstable?: boolean;
  /**
   * True when a run's warm-up reached its cap before its rate settled (`warmup.steady: false`
   * in the run). Set when the runs record their warm-up.
   */
  unsteady?: boolean;
  /** Highest 1-minute load average at the end of a run's window, when the runs record it. */
  loadAverage1m?: number;
  /**
   * Most CPU other processes used during a run's window, in cores (Linux; see
   * `RunResult.otherCpuCores`).
   */
  otherCpuCores?: number;
  /**
   * True when other processes shared the CPUs while a run was measured: they used more than
   * {@link LOADED_OTHER_CPU_CORES} cores during its window (Linux), or, where that is not
   * recorded, the 1-minute load average exceeded the core count.
   */
  loaded?: boolean;
}

/**
 * CPU (in cores) that other processes may use during a window before its row is `loaded`: a
 * whole core's worth. Measured on 2 cores: a quiet default run, median 0.19 and at most 0.69
 * (the bench's own parent and the client's work after its window); a busy loop on each core,
 * 1.11–1.67.
 */
export const LOADED_OTHER_CPU_CORES = 1;

/** Runs of a row whose metric spreads more than this (max ÷ min) make it unstable. */
export const UNSTABLE_SPREAD = 2;

/** The figure a row is judged by, per run: p50 (ns) for latency, msgs/s otherwise. */
export function runMetric(mode: CaseSpec["mode"], run: CaseResult["runs"][number]): number {
  return mode === "latency" ? (run.latency?.p50Ns ?? Number.NaN) : run.msgsPerSec;
}

/**
 * Reduces every case result; ratios use the other summaries of the same run. `cores` is the
 * machine's core count, which a run's load average is judged against.
 */
export function summarise(
  results: readonly CaseResult[],
  input: MatrixInput,
  cores: number,
): CaseSummary[] {
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
    flagRuns(s, runs, cores);
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
  const runsByKey = new Map(results.map((r) => [r.spec.key, r.runs]));
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
  for (const s of out) stability(s, runsByKey, byKey, input);
  return out;
}

/**
 * Sets `unsteady`, `loadAverage1m`, `otherCpuCores` and `loaded` of a row from its runs (see
 * CaseSummary).
 */
export function flagRuns(s: CaseSummary, runs: readonly RunResult[], cores: number): void {
  if (runs.some((r) => r.warmup !== undefined))
    s.unsteady = runs.some((r) => r.warmup?.steady === false);
  const loads = runs.flatMap((r) => (r.loadAverage1m === undefined ? [] : [r.loadAverage1m]));
  if (loads.length > 0) s.loadAverage1m = Math.max(...loads);
  const others = runs.flatMap((r) => (r.otherCpuCores === undefined ? [] : [r.otherCpuCores]));
  if (others.length > 0) {
    s.otherCpuCores = Math.max(...others);
    s.loaded = s.otherCpuCores > LOADED_OTHER_CPU_CORES;
  } else if (s.loadAverage1m !== undefined) {
    // Without /proc/stat (not Linux, or an older report): the load average, which counts the
    // case's own processes and lags by a minute, is all there is.
    s.loaded = s.loadAverage1m > cores;
  }
}

/**
 * The report with each row's run flags derived again from its runs, so that a report written
 * before a flag existed is judged like a new one when it is rendered again.
 */
export function withRunFlags(report: BenchReport): BenchReport {
  const runs = new Map(report.cases.map((c) => [c.spec.key, c.runs]));
  return {
    ...report,
    summaries: report.summaries.map((s) => {
      const out = { ...s };
      flagRuns(out, runs.get(s.spec.key) ?? [], report.machine.cores);
      return out;
    }),
  };
}

/** Sets `ratioRange` and `unstable` on a row with ≥ 2 runs (see CaseSummary). */
function stability(
  s: CaseSummary,
  runsByKey: ReadonlyMap<string, CaseResult["runs"]>,
  byKey: ReadonlyMap<string, CaseSummary>,
  input: MatrixInput,
): void {
  const own = (runsByKey.get(s.spec.key) ?? []).map((r) => runMetric(s.spec.mode, r));
  if (own.length < 2) return;
  let unstable = false;
  const finite = own.filter((v) => Number.isFinite(v) && v > 0);
  if (finite.length >= 2) {
    const [lo, hi] = spread(finite);
    if (hi / lo > UNSTABLE_SPREAD) unstable = true;
  }
  const key = comparisonKey(s.spec, input);
  const baseRuns = key === undefined ? undefined : runsByKey.get(key);
  const base = key === undefined ? undefined : byKey.get(key);
  if (s.ratio !== undefined && baseRuns !== undefined && base !== undefined) {
    const pairs: number[] = [];
    for (let i = 0; i < Math.min(own.length, baseRuns.length); i++) {
      const v =
        (own[i] as number) / runMetric(base.spec.mode, baseRuns[i] as CaseResult["runs"][number]);
      if (Number.isFinite(v)) pairs.push(v);
    }
    if (pairs.length >= 2) {
      s.ratioRange = spread(pairs);
      if (s.ratioRange[0] < 1 && s.ratioRange[1] > 1) unstable = true;
    }
  }
  s.unstable = unstable;
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
  /** The transfer section (`@nearwire/transfer`): default and `--full` runs, not `--ci`. */
  transfer?: TransferReport;
}
