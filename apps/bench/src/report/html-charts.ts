import { MESSAGE_NAMES } from "../measure/case-spec.js";
import type { CodecResult } from "../measure/codec-bench.js";
import type { CaseSummary } from "./summary.js";
import { PALETTE } from "./svg-chart.js";

/** How a chart's values are printed in the page: time in ns, a rate, or CPU µs. */
export type ChartUnit = "ns" | "count" | "us" | "mbs";

/** One bar series: a codec (or operation) across the chart's categories. */
export interface ChartDataset {
  label: string;
  color: string;
  /** One value per label; null = not measured. */
  data: (number | null)[];
  /** Shown in the tooltip next to each bar (for example p99 beside a p50 bar). */
  extra?: { name: string; unit: ChartUnit; data: (number | null)[] };
}

/** A grouped bar chart, data only: the page draws it with Chart.js. */
export interface ChartSpec {
  id: string;
  title: string;
  unit: ChartUnit;
  /** Value axis label, with units. */
  axis: string;
  /** Categories on the x axis (transports, or messages). */
  labels: string[];
  datasets: ChartDataset[];
  /** Log axis: chosen when the values span more than {@link LINEAR_MAX_SPAN}×; the page can toggle it. */
  log: boolean;
}

/** A row of small multiples: the same measure, one chart per payload (or per operation). */
export interface ChartGroup {
  id: string;
  title: string;
  note: string;
  charts: ChartSpec[];
}

/** Largest max ÷ min of a chart's values that still gets a linear axis. */
export const LINEAR_MAX_SPAN = 20;

/**
 * Series colours: one per codec, the same in every chart; `bytes` (bare baselines) and `frame`
 * (channel layer) get colours of their own.
 */
export function codecColors(codecs: readonly string[]): Map<string, string> {
  const own = codecs.filter((c) => c !== "bytes" && c !== "frame");
  const map = new Map(own.map((c, i) => [c, PALETTE[i % 5] as string]));
  map.set("bytes", "#D55E00");
  map.set("frame", "#555555");
  return map;
}

/** True when the positive values span at most {@link LINEAR_MAX_SPAN}×. */
export function linearFits(values: readonly (number | null)[]): boolean {
  const v = values.filter((x): x is number => x !== null && x > 0);
  if (v.length === 0) return true;
  return Math.max(...v) / Math.min(...v) <= LINEAR_MAX_SPAN;
}

const ok = (s: CaseSummary) => s.runs > 0;

/** Payload labels in report order: tick, request, metric, then the sizes ascending. */
function payloadOrder(rows: readonly CaseSummary[]): string[] {
  const firsts = new Map<string, CaseSummary>();
  for (const s of rows) if (!firsts.has(s.spec.payload)) firsts.set(s.spec.payload, s);
  return [...firsts.values()]
    .sort(
      (a, b) =>
        MESSAGE_NAMES.indexOf(a.spec.message) - MESSAGE_NAMES.indexOf(b.spec.message) ||
        a.spec.payloadBytes - b.spec.payloadBytes,
    )
    .map((s) => s.spec.payload);
}

function perPayload(
  rows: readonly CaseSummary[],
  colors: Map<string, string>,
  idPrefix: string,
  title: (payload: string) => string,
  unit: ChartUnit,
  axis: string,
  value: (s: CaseSummary) => number | undefined,
  extra?: { name: string; unit: ChartUnit; value: (s: CaseSummary) => number | undefined },
): ChartSpec[] {
  return payloadOrder(rows).map((payload) => {
    const at = rows.filter((s) => s.spec.payload === payload);
    const labels = [...new Set(at.map((s) => s.spec.transport))];
    const codecs = [...colors.keys()].filter((c) => at.some((s) => s.spec.codec === c));
    const find = (t: string, c: string) =>
      at.find((s) => s.spec.transport === t && s.spec.codec === c);
    const datasets = codecs.map((c): ChartDataset => {
      const d: ChartDataset = {
        label: c,
        color: colors.get(c) as string,
        data: labels.map((t) => num(find(t, c), value)),
      };
      if (extra)
        d.extra = {
          name: extra.name,
          unit: extra.unit,
          data: labels.map((t) => num(find(t, c), extra.value)),
        };
      return d;
    });
    return {
      id: `${idPrefix}-${payload}`,
      title: title(payload),
      unit,
      axis,
      labels,
      datasets,
      log: !linearFits(datasets.flatMap((d) => d.data)),
    };
  });
}

function num(
  s: CaseSummary | undefined,
  value: (s: CaseSummary) => number | undefined,
): number | null {
  const v = s === undefined ? undefined : value(s);
  return v === undefined || !Number.isFinite(v) ? null : v;
}

/**
 * The HTML report's charts: latency, throughput, streaming and CPU as small multiples (one
 * chart per payload, transports along the axis, one bar per codec), and the codec speeds.
 */
export function htmlCharts(
  rows: readonly CaseSummary[],
  codecResults: readonly CodecResult[],
  codecs: readonly string[],
): ChartGroup[] {
  const colors = codecColors(codecs);
  const measured = rows.filter(ok);
  const mode = (m: string) => measured.filter((s) => s.spec.mode === m);
  const groups: ChartGroup[] = [
    {
      id: "latency",
      title: "Round-trip latency, p50",
      note: "One call in flight; bar = p50 (the tooltip adds p99). Lower is better.",
      charts: perPayload(
        mode("latency"),
        colors,
        "latency",
        (p) => `p50 · ${p}`,
        "ns",
        "round trip",
        (s) => s.p50Ns,
        { name: "p99", unit: "ns", value: (s) => s.p99Ns },
      ),
    },
    {
      id: "throughput",
      title: "Throughput, 64 calls in flight",
      note: "Completed round trips per second (the tooltip adds CPU µs per message, both sides). Higher is better.",
      charts: perPayload(
        mode("throughput"),
        colors,
        "throughput",
        (p) => `msgs/s · ${p}`,
        "count",
        "msgs/s",
        (s) => s.msgsPerSec,
        {
          name: "CPU µs/msg",
          unit: "us",
          value: (s) => s.clientCpuUsPerMsg + s.serverCpuUsPerMsg,
        },
      ),
    },
    {
      id: "stream",
      title: "One-way streaming",
      note: "Messages per second received by the client (the tooltip adds MB/s). Higher is better.",
      charts: perPayload(
        mode("stream"),
        colors,
        "stream",
        (p) => `msgs/s · ${p}`,
        "count",
        "msgs/s",
        (s) => s.msgsPerSec,
        { name: "MB/s", unit: "mbs", value: (s) => s.mbPerSec },
      ),
    },
    {
      id: "cpu",
      title: "CPU per round trip, one call in flight",
      note: "User + system µs per call, client + server (the tooltip adds the server's share). A spinning transport shows its cost here. Engine rows (memory) run both sides in the client process.",
      charts: perPayload(
        mode("latency"),
        colors,
        "cpu",
        (p) => `CPU µs · ${p}`,
        "us",
        "CPU µs per call",
        (s) => s.clientCpuUsPerMsg + s.serverCpuUsPerMsg,
        { name: "server µs", unit: "us", value: (s) => s.serverCpuUsPerMsg },
      ),
    },
  ];
  const messages = [...new Set(codecResults.map((c) => c.message))];
  const names = [...new Set(codecResults.map((c) => c.codec))];
  const codecCharts = messages.map((m): ChartSpec => {
    const at = names.map((n) => codecResults.find((c) => c.codec === n && c.message === m));
    const bytes = at.map((r) => r?.encodedBytes ?? null);
    const datasets: ChartDataset[] = [
      {
        label: "encode",
        color: PALETTE[0] as string,
        data: at.map((r) => r?.encodeOpsPerSec ?? null),
        extra: { name: "bytes", unit: "count", data: bytes },
      },
      {
        label: "decode",
        color: PALETTE[1] as string,
        data: at.map((r) => r?.decodeOpsPerSec ?? null),
        extra: { name: "bytes", unit: "count", data: bytes },
      },
    ];
    return {
      id: `codec-${m}`,
      title: `ops/s · ${m}`,
      unit: "count",
      axis: "ops/s",
      labels: names,
      datasets,
      log: !linearFits(datasets.flatMap((d) => d.data)),
    };
  });
  groups.push({
    id: "codecs",
    title: "Codecs",
    note: "tinybench median ops/s, one chart per message, one process per codec (the tooltip adds the encoded bytes). Higher is better.",
    charts: codecCharts,
  });
  return groups.filter((g) => g.charts.length > 0);
}
