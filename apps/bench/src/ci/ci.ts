import type { CodecResult } from "../measure/codec-bench.js";
import { fmt3, textTable } from "../report/format.js";
import { median } from "../report/stats.js";
import type { CaseSummary } from "../report/summary.js";

/**
 * CI mode: ratios within one run (absolute times drift between machines), compared to the
 * committed `baseline.json`. A ratio regresses when it crosses its limit, which sits beyond
 * the spread observed over repeated runs on an unchanged tree (see README "CI mode").
 */

/** Whether a smaller or a larger ratio is better. */
export type Direction = "lower" | "higher";

/** One gated ratio. */
export interface RatioDef {
  name: string;
  direction: Direction;
  /** Case keys (`mode:id`) or codec keys (`codec:<codec>/<message>/<encode|decode>`). */
  numerator: string;
  denominator: string;
  /**
   * Smallest relative margin for this ratio, when the default is known to be too tight: the
   * sub-microsecond shm-ring spin figures switch between two levels (0.5 µs and 1.1 µs round
   * trips; 4 M and 12 M msgs/s) from run to run on an unchanged tree, more than 5 rounds show.
   */
  minMargin?: number;
}

/** Margin of the shm-ring spin channel ratios (see `RatioDef.minMargin`). */
const BIMODAL_MARGIN = 2;

/** The ratios CI mode gates on (those whose cases ran). */
export const CI_RATIOS: readonly RatioDef[] = [
  lat("uds/raw/64B p50 ÷ bare-net-uds p50", "uds/raw/64B", "bare-net-uds/bytes/64B"),
  lat("uds-channel 64B p50 ÷ bare-net-uds p50", "uds-channel/frame/64B", "bare-net-uds/bytes/64B"),
  lat("shm-ring-spin/raw/64B p50 ÷ uds/raw/64B p50", "shm-ring-spin/raw/64B", "uds/raw/64B"),
  lat(
    "shm-ring-spin/raw/64B p50 ÷ shm-ring-spin-channel p50",
    "shm-ring-spin/raw/64B",
    "shm-ring-spin-channel/frame/64B",
  ),
  {
    ...lat(
      "shm-ring-spin-channel 64B p50 ÷ uds-channel p50",
      "shm-ring-spin-channel/frame/64B",
      "uds-channel/frame/64B",
    ),
    minMargin: BIMODAL_MARGIN,
  },
  flow(
    "throughput",
    "uds/raw/64B ×64 msgs/s ÷ bare-net-uds",
    "uds/raw/64B",
    "bare-net-uds/bytes/64B",
  ),
  flow("throughput", "memory/bytes/64B ×64 msgs/s ÷ uds/raw", "memory/bytes/64B", "uds/raw/64B"),
  flow("stream", "uds/raw/64B stream ÷ uds-channel", "uds/raw/64B", "uds-channel/frame/64B"),
  {
    ...flow(
      "stream",
      "shm-ring-spin-channel stream msgs/s ÷ uds-channel",
      "shm-ring-spin-channel/frame/64B",
      "uds-channel/frame/64B",
    ),
    minMargin: BIMODAL_MARGIN,
  },
  flow(
    "stream",
    "shm-ring-spin/raw/64B stream ÷ shm-ring-spin-channel",
    "shm-ring-spin/raw/64B",
    "shm-ring-spin-channel/frame/64B",
  ),
  // Computed when a run has these rows (the default and full matrices); the CI matrix leaves
  // them out for time, so they are not in the committed record.
  lat("uds/json/64B p50 ÷ bare-net-uds p50", "uds/json/64B", "bare-net-uds/bytes/64B"),
  lat("tcp/json/64B p50 ÷ bare-net-tcp p50", "tcp/json/64B", "bare-net-tcp/bytes/64B"),
  lat("shm-ring-spin/json/64B p50 ÷ uds/json/64B p50", "shm-ring-spin/json/64B", "uds/json/64B"),
  flow(
    "throughput",
    "uds/json/64B ×64 msgs/s ÷ bare-net-uds",
    "uds/json/64B",
    "bare-net-uds/bytes/64B",
  ),
  flow(
    "stream",
    "uds-channel 64B stream msgs/s ÷ bare-net-uds",
    "uds-channel/frame/64B",
    "bare-net-uds/bytes/64B",
  ),
  ...["msgpack", "protobuf", "flatbuffers", "raw"].flatMap((c) =>
    (["encode", "decode"] as const).map(
      (op): RatioDef => ({
        name: `${c} tick ${op} ops/s ÷ json`,
        direction: "higher",
        numerator: `codec:${c}/tick/${op}`,
        denominator: `codec:json/tick/${op}`,
      }),
    ),
  ),
];

function lat(name: string, num: string, den: string): RatioDef {
  return { name, direction: "lower", numerator: `latency:${num}`, denominator: `latency:${den}` };
}
function flow(mode: string, name: string, num: string, den: string): RatioDef {
  return { name, direction: "higher", numerator: `${mode}:${num}`, denominator: `${mode}:${den}` };
}

/** Computes every CI ratio whose two sides were measured in this run. */
export function computeRatios(
  rows: readonly CaseSummary[],
  codecs: readonly CodecResult[],
): Record<string, number> {
  const values = new Map<string, number>();
  for (const s of rows) {
    if (s.runs === 0) continue;
    values.set(s.spec.key, s.spec.mode === "latency" ? (s.p50Ns ?? Number.NaN) : s.msgsPerSec);
  }
  for (const c of codecs) {
    values.set(`codec:${c.codec}/${c.message}/encode`, c.encodeOpsPerSec);
    values.set(`codec:${c.codec}/${c.message}/decode`, c.decodeOpsPerSec);
  }
  const out: Record<string, number> = {};
  for (const r of CI_RATIOS) {
    const n = values.get(r.numerator);
    const d = values.get(r.denominator);
    if (n !== undefined && d !== undefined && Number.isFinite(n / d) && d > 0) out[r.name] = n / d;
  }
  return out;
}

/** One ratio in `baseline.json`. */
export interface BaselineRatio {
  direction: Direction;
  /** Median, min and max over the recorded CI runs. */
  median: number;
  min: number;
  max: number;
  /** The value past which CI fails: above it for "lower", below it for "higher". */
  limit: number;
  /** Each recorded run's value, for the record. */
  samples: number[];
}

/** The committed baseline. */
export interface Baseline {
  formatVersion: 1;
  createdAt: string;
  /** How many full CI runs the spread comes from. */
  runs: number;
  /** Relative margin added beyond the observed spread (0.2 = 20 %). */
  margin: number;
  machine: { cpuModel: string; cores: number; node: string };
  ratios: Record<string, BaselineRatio>;
}

/** Default margin beyond the observed spread. */
export const DEFAULT_MARGIN = 0.25;

/**
 * Builds a baseline from several CI runs' ratios. The limit lies beyond the worst observed run
 * by `m = max(margin, max/min − 1)` (a ratio that swung 3× between runs on an unchanged tree
 * gets 3× more room), and at least `2 × margin` away from the median, so noise never fails CI.
 */
export function makeBaseline(
  runs: readonly Record<string, number>[],
  machine: Baseline["machine"],
  margin = DEFAULT_MARGIN,
  createdAt = new Date().toISOString(),
): Baseline {
  const ratios: Record<string, BaselineRatio> = {};
  for (const def of CI_RATIOS) {
    const vals = runs.map((r) => r[def.name]).filter((v): v is number => v !== undefined);
    if (vals.length === 0) continue;
    const med = median(vals);
    const min = Math.min(...vals);
    const max = Math.max(...vals);
    const floor = Math.max(margin, def.minMargin ?? 0);
    const m = Math.max(floor, max / min - 1);
    const limit =
      def.direction === "lower"
        ? Math.max(max * (1 + m), med * (1 + 2 * floor))
        : Math.min(min / (1 + m), med / (1 + 2 * floor));
    ratios[def.name] = { direction: def.direction, median: med, min, max, limit, samples: vals };
  }
  return { formatVersion: 1, createdAt, runs: runs.length, margin, machine, ratios };
}

/** 4 significant digits: more would be noise. */
function round4(n: number): number {
  return Number(n.toPrecision(4));
}

/**
 * The baseline as committed: values rounded to 4 significant digits, 2-space JSON with number
 * arrays on one line (the layout Biome's formatter keeps, so `format` leaves the file alone).
 */
export function serializeBaseline(b: Baseline): string {
  const rounded: Baseline = {
    ...b,
    margin: b.margin,
    ratios: Object.fromEntries(
      Object.entries(b.ratios).map(([k, r]) => [
        k,
        {
          direction: r.direction,
          median: round4(r.median),
          min: round4(r.min),
          max: round4(r.max),
          limit: round4(r.limit),
          samples: r.samples.map(round4),
        },
      ]),
    ),
  };
  const text = JSON.stringify(rounded, null, 2).replace(
    /\[\n\s*(-?[\d.e+-]+(?:,\n\s*-?[\d.e+-]+)*)\n\s*\]/g,
    (_m, inner: string) => `[${inner.split(/,\n\s*/).join(", ")}]`,
  );
  return `${text}\n`;
}

/** One line of the comparison. */
export interface ComparisonRow {
  name: string;
  status: "ok" | "regressed" | "new" | "missing";
  current?: number;
  baseline?: BaselineRatio;
}

/** Compares this run's ratios with the baseline. Fails on a regression or a missing ratio. */
export function compare(
  current: Record<string, number>,
  baseline: Baseline,
): { rows: ComparisonRow[]; failed: boolean } {
  const rows: ComparisonRow[] = [];
  for (const [name, b] of Object.entries(baseline.ratios)) {
    const v = current[name];
    if (v === undefined) rows.push({ name, status: "missing", baseline: b });
    else {
      const bad = b.direction === "lower" ? v > b.limit : v < b.limit;
      rows.push({ name, status: bad ? "regressed" : "ok", current: v, baseline: b });
    }
  }
  for (const [name, v] of Object.entries(current)) {
    if (!(name in baseline.ratios)) rows.push({ name, status: "new", current: v });
  }
  return { rows, failed: rows.some((r) => r.status === "regressed" || r.status === "missing") };
}

/** The comparison as a readable text table. */
export function comparisonTable(rows: readonly ComparisonRow[]): string {
  return textTable(
    ["ratio", "better", "now", "baseline", "spread (min–max)", "limit", "status"],
    rows.map((r) => [
      r.name,
      r.baseline?.direction ?? "",
      fmt3(r.current),
      fmt3(r.baseline?.median),
      r.baseline ? `${fmt3(r.baseline.min)}–${fmt3(r.baseline.max)}` : "",
      r.baseline ? `${r.baseline.direction === "lower" ? "≤" : "≥"} ${fmt3(r.baseline.limit)}` : "",
      r.status === "regressed" ? "REGRESSED" : r.status === "missing" ? "MISSING" : r.status,
    ]),
  );
}
