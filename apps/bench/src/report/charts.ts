import type { CodecResult } from "../measure/codec-bench.js";
import { fmtCount, fmtNs } from "./format.js";
import type { CaseSummary } from "./summary.js";
import { type BarChart, type Group, PALETTE, renderBarChart } from "./svg-chart.js";

/** The report's charts: file name → SVG text. */
export function renderCharts(
  codecs: readonly CodecResult[],
  rows: readonly CaseSummary[],
): Record<string, string> {
  const out: Record<string, string> = {};
  const lat = latencyChart(rows);
  if (lat) out["latency.svg"] = renderBarChart(lat);
  const thr = throughputChart(rows);
  if (thr) out["throughput.svg"] = renderBarChart(thr);
  const cod = codecChart(codecs);
  if (cod) out["codecs.svg"] = renderBarChart(cod);
  const cpu = cpuChart(rows);
  if (cpu) out["cpu.svg"] = renderBarChart(cpu);
  return out;
}

const ok = (s: CaseSummary) => s.runs > 0;

function latencyChart(rows: readonly CaseSummary[]): BarChart | undefined {
  const sized = rows.filter(
    (s) => ok(s) && s.spec.mode === "latency" && s.spec.message === "chunk",
  );
  const sizes = [...new Set(sized.map((s) => s.spec.payloadBytes))].sort((a, b) => a - b);
  const labels = [...new Set(sized.map((s) => `${s.spec.transport}/${s.spec.codec}`))];
  if (sized.length === 0) return undefined;
  const groups: Group[] = labels.map((label) => {
    const find = (b: number) =>
      sized.find(
        (s) => `${s.spec.transport}/${s.spec.codec}` === label && s.spec.payloadBytes === b,
      );
    return {
      label,
      values: sizes.map((b) => find(b)?.p50Ns),
      markers: sizes.map((b) => find(b)?.p99Ns),
    };
  });
  return {
    title: "Round-trip latency by transport and payload size",
    subtitle: "one call in flight; bar = p50, tick = p99; lower is better",
    axisLabel: "round trip",
    log: true,
    series: sizes.map((b, i) => ({
      name: sized.find((s) => s.spec.payloadBytes === b)?.spec.payload ?? `${b}B`,
      color: PALETTE[i % PALETTE.length] as string,
    })),
    groups,
    markerLabel: "p99",
    format: fmtNs,
  };
}

function throughputChart(rows: readonly CaseSummary[]): BarChart | undefined {
  const thr = rows.filter((s) => ok(s) && s.spec.mode === "throughput");
  if (thr.length === 0) return undefined;
  const smallest = Math.min(...thr.map((s) => s.spec.payloadBytes));
  const pick = thr.filter((s) => s.spec.payloadBytes === smallest);
  const codecs = [...new Set(pick.map((s) => s.spec.codec))];
  const transports = [...new Set(pick.map((s) => s.spec.transport))];
  return {
    title: `Throughput by transport and codec (${pick[0]?.spec.payload ?? ""} payload, 64 calls in flight)`,
    subtitle: "completed round trips per second; higher is better",
    axisLabel: "msgs/s",
    log: true,
    series: codecs.map((c, i) => ({ name: c, color: PALETTE[i % PALETTE.length] as string })),
    groups: transports.map((t) => ({
      label: t,
      values: codecs.map(
        (c) => pick.find((s) => s.spec.transport === t && s.spec.codec === c)?.msgsPerSec,
      ),
    })),
    format: fmtCount,
  };
}

function codecChart(codecs: readonly CodecResult[]): BarChart | undefined {
  if (codecs.length === 0) return undefined;
  const names = [...new Set(codecs.map((c) => c.codec))];
  const messages = [...new Set(codecs.map((c) => c.message))];
  const groups: Group[] = messages.flatMap((m) =>
    (["encode", "decode"] as const).map((op) => ({
      label: `${m} ${op}`,
      values: names.map((n) => {
        const r = codecs.find((c) => c.codec === n && c.message === m);
        return r === undefined
          ? undefined
          : op === "encode"
            ? r.encodeOpsPerSec
            : r.decodeOpsPerSec;
      }),
    })),
  );
  return {
    title: "Codec speed by message",
    subtitle: "tinybench median, one process per codec; higher is better",
    axisLabel: "ops/s",
    log: true,
    series: names.map((n, i) => ({ name: n, color: PALETTE[i % PALETTE.length] as string })),
    groups,
    format: fmtCount,
  };
}

function cpuChart(rows: readonly CaseSummary[]): BarChart | undefined {
  const pick = rows.filter(
    (s) =>
      ok(s) &&
      (s.spec.mode === "throughput" ||
        (s.spec.mode === "latency" && (s.spec.payloadBytes === 64 || s.spec.message === "tick"))),
  );
  if (pick.length === 0) return undefined;
  return {
    title: "CPU time per message",
    subtitle:
      "user + system µs per round trip on each side (process.cpuUsage); spinning shows up here",
    axisLabel: "CPU µs per message",
    log: true,
    series: [
      { name: "client", color: PALETTE[0] as string },
      { name: "server", color: PALETTE[1] as string },
    ],
    groups: pick.map((s) => ({
      label: `${s.spec.mode === "throughput" ? "64×" : "1×"} ${s.spec.id}`,
      values: [s.clientCpuUsPerMsg, s.serverCpuUsPerMsg],
    })),
    format: (v) => (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toPrecision(3) : v.toPrecision(2)),
  };
}
