import { fmtCount, fmtNs, fmtRatio } from "./format.js";
import type { CaseSummary } from "./summary.js";
import type { Table } from "./table.js";

/**
 * The RPC engines' targets (64 B messages): what a service call may cost on top of the channel
 * under it, and what the gRPC engine costs against grpc-js and grpc-go, as ratios of
 * two rows of one run (and one absolute rate, the engine alone). A target whose rows did not
 * run (no Go installed, a filter) is left out. They are
 * reported in every run that measured both rows, the CI run included, and never fail a run: the
 * same code meets some of them on one CPU model and misses them on another (kernel wake-ups and
 * cache-line transfers differ several-fold), so they are a goal to read, and the A/B gate is
 * what fails a regression.
 */
export interface EngineTarget {
  /** What is measured, in words. */
  what: string;
  /** Case key of the row measured (`mode:transport/codec/size`). */
  row: string;
  /** Case key of the row it is divided by; absent for an absolute rate. */
  versus?: string;
  /** "max": the ratio (or p50) must stay at or below `limit`; "min": at or above. */
  bound: "max" | "min";
  limit: number;
  /** A stretch goal, shown but not part of "met". */
  stretch?: boolean;
}

export const ENGINE_TARGETS: readonly EngineTarget[] = [
  {
    what: "uds RPC throughput vs bare node:net (64 in flight)",
    row: "throughput:uds/raw/64B",
    versus: "throughput:bare-net-uds/bytes/64B",
    bound: "min",
    limit: 1.0,
  },
  {
    what: "uds RPC throughput vs its channel (stretch)",
    row: "throughput:uds/raw/64B",
    versus: "throughput:uds-channel/frame/64B",
    bound: "min",
    limit: 0.6,
    stretch: true,
  },
  {
    what: "uds RPC round trip vs bare node:net (p50)",
    row: "latency:uds/raw/64B",
    versus: "latency:bare-net-uds/bytes/64B",
    bound: "max",
    limit: 1.15,
  },
  {
    what: "shm-ring spin RPC round trip vs its channel (p50)",
    row: "latency:shm-ring-spin/raw/64B",
    versus: "latency:shm-ring-spin-channel/frame/64B",
    bound: "max",
    limit: 2.5,
  },
  {
    what: "shm-ring spin RPC throughput vs its channel",
    row: "throughput:shm-ring-spin/raw/64B",
    versus: "throughput:shm-ring-spin-channel/frame/64B",
    bound: "min",
    limit: 0.5,
  },
  {
    what: "uds server stream vs its channel one way",
    row: "stream:uds/raw/64B",
    versus: "stream:uds-channel/frame/64B",
    bound: "min",
    limit: 0.5,
  },
  {
    what: "shm-ring spin server stream vs its channel one way",
    row: "stream:shm-ring-spin/raw/64B",
    versus: "stream:shm-ring-spin-channel/frame/64B",
    bound: "min",
    limit: 0.5,
  },
  {
    what: "grpc-uds throughput vs bare grpc-js (64 in flight)",
    row: "throughput:grpc-uds/raw/64B",
    versus: "throughput:bare-grpc-js/bytes/64B",
    bound: "min",
    limit: 10,
  },
  {
    what: "grpc-uds throughput vs grpc-go over unix (64 in flight)",
    row: "throughput:grpc-uds/raw/64B",
    versus: "throughput:go-grpc-uds/bytes/64B",
    bound: "min",
    limit: 1.0,
  },
  {
    what: "grpc-uds throughput vs grpc-go over unix (stretch)",
    row: "throughput:grpc-uds/raw/64B",
    versus: "throughput:go-grpc-uds/bytes/64B",
    bound: "min",
    limit: 2.0,
    stretch: true,
  },
  {
    what: "grpc-uds round trip vs nearwire uds RPC (p50)",
    row: "latency:grpc-uds/raw/64B",
    versus: "latency:uds/raw/64B",
    bound: "max",
    limit: 1.3,
  },
  {
    what: "grpc-uds round trip vs grpc-go over unix (p50)",
    row: "latency:grpc-uds/raw/64B",
    versus: "latency:go-grpc-uds/bytes/64B",
    bound: "max",
    limit: 1.0,
  },
  {
    what: "grpc-uds server stream vs the uds RPC stream",
    row: "stream:grpc-uds/raw/64B",
    versus: "stream:uds/raw/64B",
    bound: "min",
    limit: 0.5,
  },
  {
    what: "grpc-tcp throughput vs bare grpc-js over TCP (64 in flight)",
    row: "throughput:grpc-tcp/raw/64B",
    versus: "throughput:bare-grpc-js-tcp/bytes/64B",
    bound: "min",
    limit: 10,
  },
  {
    what: "grpc-tcp throughput vs grpc-go over TCP (64 in flight)",
    row: "throughput:grpc-tcp/raw/64B",
    versus: "throughput:go-grpc-tcp/bytes/64B",
    bound: "min",
    limit: 1.0,
  },
  {
    what: "grpc-tcp round trip vs grpc-go over TCP (p50)",
    row: "latency:grpc-tcp/raw/64B",
    versus: "latency:go-grpc-tcp/bytes/64B",
    bound: "max",
    limit: 1.0,
  },
  {
    what: "the engine alone: unary calls/s in one process (64 in flight, pass-through codec)",
    row: "throughput:memory/bytes/64B",
    bound: "min",
    limit: 1_000_000,
  },
];

/** One target against one run. */
export interface EngineTargetResult {
  target: EngineTarget;
  /** The ratio (or, without `versus`, the row's own msgs/s); undefined when a row is missing. */
  value: number | undefined;
  met: boolean | undefined;
}

/** The figure a ratio is taken of: p50 for latency rows, msgs/s otherwise. */
function figure(s: CaseSummary | undefined): number | undefined {
  if (s === undefined || s.runs === 0 || s.error !== undefined) return undefined;
  const v = s.spec.mode === "latency" ? s.p50Ns : s.msgsPerSec;
  return v !== undefined && Number.isFinite(v) && v > 0 ? v : undefined;
}

const fmtFigure = (s: CaseSummary | undefined) =>
  s?.spec.mode === "latency" ? fmtNs(figure(s)) : fmtCount(figure(s));

/** Every target whose rows this run measured. */
export function engineTargetResults(rows: readonly CaseSummary[]): EngineTargetResult[] {
  const byKey = new Map(rows.map((s) => [s.spec.key, s]));
  const out: EngineTargetResult[] = [];
  for (const target of ENGINE_TARGETS) {
    const a = byKey.get(target.row);
    const b = target.versus === undefined ? undefined : byKey.get(target.versus);
    if (a === undefined || (target.versus !== undefined && b === undefined)) continue;
    const n = figure(a);
    const d = target.versus === undefined ? 1 : figure(b);
    const value = n === undefined || d === undefined ? undefined : n / d;
    const met =
      value === undefined
        ? undefined
        : target.bound === "max"
          ? value <= target.limit
          : value >= target.limit;
    out.push({ target, value, met });
  }
  return out;
}

/** The targets as a report table (rows only for targets whose rows ran). */
export function engineTargetsTable(rows: readonly CaseSummary[]): Table {
  const byKey = new Map(rows.map((s) => [s.spec.key, s]));
  const results = engineTargetResults(rows);
  const id = (key: string) => key.slice(key.indexOf(":") + 1);
  return {
    title: "Engine targets (64 B, this run)",
    note: "What a service call may cost over its channel, as ratios of two rows of this run (p50 for latency, msgs/s otherwise); the engine row is an absolute rate. Reported, never gating: the same code meets some targets on one CPU model and not on another. A stream row pays for async iteration on both ends (an async function* server, a for-await client) and carries its messages several to a BATCH frame (PROTOCOL.md §5.2); `node apps/bench/dist/measure/stream-floor.js` measures those floors with no engine between.",
    headers: ["target", "rows", "measured", "this run", "target", "met"],
    rows: results.map(({ target, value, met }) => {
      const absolute = target.versus === undefined;
      const bound = target.bound === "max" ? "≤" : "≥";
      return [
        target.what,
        absolute ? id(target.row) : `${id(target.row)} ÷ ${id(target.versus as string)}`,
        absolute
          ? fmtFigure(byKey.get(target.row))
          : `${fmtFigure(byKey.get(target.row))} ÷ ${fmtFigure(byKey.get(target.versus as string))}`,
        absolute ? `${fmtCount(value)}/s` : fmtRatio(value),
        absolute ? `${bound} ${fmtCount(target.limit)}/s` : `${bound} ${fmtRatio(target.limit)}`,
        met === undefined ? "—" : `${met ? "met" : "NOT met"}${target.stretch ? " (stretch)" : ""}`,
      ];
    }),
    values: results.map(({ value, target }) => [
      undefined,
      undefined,
      undefined,
      value,
      target.limit,
      undefined,
    ]),
  };
}
