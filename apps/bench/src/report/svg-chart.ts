/**
 * A hand-written horizontal grouped bar chart in SVG (no dependencies): one row of bars per
 * group, one bar per series, optional tick markers (for p99 next to a p50 bar), linear or
 * log-10 axis with labelled ticks, a legend, and the value printed at the end of each bar.
 */

/** One series: a legend entry and a colour. */
export interface Series {
  name: string;
  color: string;
}

/** One group of bars (a row label), with one value per series (undefined = no bar). */
export interface Group {
  label: string;
  values: (number | undefined)[];
  /** Optional marker per series (drawn as a tick across the bar's row). */
  markers?: (number | undefined)[];
}

/** A chart description. */
export interface BarChart {
  title: string;
  subtitle?: string;
  /** Label of the value axis, with units. */
  axisLabel: string;
  log: boolean;
  series: Series[];
  groups: Group[];
  /** Legend text of the markers, when there are any (`p99`). */
  markerLabel?: string;
  format: (v: number) => string;
}

/** Colour-blind-friendly palette (Okabe–Ito). */
export const PALETTE = [
  "#0072B2",
  "#E69F00",
  "#009E73",
  "#CC79A7",
  "#56B4E9",
  "#D55E00",
  "#F0E442",
  "#000000",
];

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function niceStep(range: number): number {
  const raw = range / 6;
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

/** Renders `chart` to a standalone SVG document. */
export function renderBarChart(chart: BarChart): string {
  const barH = 13;
  const barGap = 3;
  const groupGap = 12;
  const labelW = Math.min(300, 16 + 6.6 * Math.max(10, ...chart.groups.map((g) => g.label.length)));
  const plotW = 560;
  const valueW = 90;
  const width = labelW + plotW + valueW + 20;
  const top = chart.subtitle ? 92 : 74;
  const legendRows = Math.ceil((chart.series.length + (chart.markerLabel ? 1 : 0)) / 4);
  // Only series with a value get a row, so sparse groups (a baseline with one codec) stay compact.
  const slots = chart.groups.map((g) => {
    const s = g.values.flatMap((v, i) => (v !== undefined && Number.isFinite(v) ? [i] : []));
    return s.length > 0 ? s : [0];
  });
  const heightOf = (n: number) => n * (barH + barGap) - barGap;
  const plotH = slots.reduce((a, s) => a + heightOf(s.length) + groupGap, groupGap);
  const height = top + plotH + 50 + legendRows * 20;

  const { ticks, x } = axisScale(chart, labelW, plotW);

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="26" text-anchor="middle" font-size="16" font-weight="bold">${esc(chart.title)}</text>`,
  );
  if (chart.subtitle)
    out.push(
      `<text x="${width / 2}" y="46" text-anchor="middle" fill="#555">${esc(chart.subtitle)}</text>`,
    );
  const axisY = top + plotH;
  out.push(
    `<text x="${labelW + plotW / 2}" y="${top - 24}" text-anchor="middle" font-weight="bold">${esc(chart.axisLabel)}${chart.log ? " (log scale)" : ""}</text>`,
  );
  for (const t of ticks) {
    const tx = x(t);
    out.push(`<line x1="${tx}" y1="${top - 8}" x2="${tx}" y2="${axisY}" stroke="#ddd"/>`);
    out.push(
      `<text x="${tx}" y="${top - 10}" text-anchor="middle" fill="#333">${esc(chart.format(t))}</text>`,
    );
    out.push(
      `<text x="${tx}" y="${axisY + 16}" text-anchor="middle" fill="#333">${esc(chart.format(t))}</text>`,
    );
  }
  out.push(`<line x1="${labelW}" y1="${top - 8}" x2="${labelW}" y2="${axisY}" stroke="#333"/>`);
  out.push(
    `<line x1="${labelW}" y1="${axisY}" x2="${labelW + plotW}" y2="${axisY}" stroke="#333"/>`,
  );

  let gy = top + groupGap;
  chart.groups.forEach((g, gi) => {
    const rows = slots[gi] ?? [0];
    const groupH = heightOf(rows.length);
    if (gi % 2 === 1)
      out.push(
        `<rect x="0" y="${gy - groupGap / 2}" width="${width}" height="${groupH + groupGap}" fill="#f6f6f6"/>`,
      );
    out.push(
      `<text x="${labelW - 8}" y="${gy + groupH / 2 + 4}" text-anchor="end">${esc(g.label)}</text>`,
    );
    rows.forEach((si, row) => {
      const v = g.values[si];
      const y = gy + row * (barH + barGap);
      const color = chart.series[si]?.color ?? "#888";
      if (v !== undefined && Number.isFinite(v) && v > 0) {
        const w = Math.max(1, x(v) - labelW);
        out.push(
          `<rect x="${labelW}" y="${y}" width="${w.toFixed(1)}" height="${barH}" fill="${color}"><title>${esc(`${g.label} ${chart.series[si]?.name ?? ""}: ${chart.format(v)}`)}</title></rect>`,
        );
      }
      const m = g.markers?.[si];
      if (m !== undefined && Number.isFinite(m) && m > 0) {
        const mx = x(m);
        out.push(
          `<line x1="${mx}" y1="${y - 2}" x2="${mx}" y2="${y + barH + 2}" stroke="#222" stroke-width="2"/>`,
        );
        if (v !== undefined)
          out.push(
            `<line x1="${x(v)}" y1="${y + barH / 2}" x2="${mx}" y2="${y + barH / 2}" stroke="#222" stroke-width="1"/>`,
          );
      }
      const label =
        v === undefined || !Number.isFinite(v)
          ? ""
          : chart.format(v) +
            (m !== undefined && Number.isFinite(m) ? ` / ${chart.format(m)}` : "");
      if (label !== "")
        out.push(
          `<text x="${labelW + plotW + 6}" y="${y + barH - 2}" fill="#333" font-size="11">${esc(label)}</text>`,
        );
    });
    gy += groupH + groupGap;
  });

  out.push(...legendLines(chart, labelW, axisY));
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

/** The value axis: its ticks, and `x(value)`, the value's position (clamped to the plot). */
function axisScale(
  chart: BarChart,
  labelW: number,
  plotW: number,
): { ticks: number[]; x: (v: number) => number } {
  const all = chart.groups
    .flatMap((g) => [...g.values, ...(g.markers ?? [])])
    .filter((v): v is number => v !== undefined && v > 0);
  const maxV = all.length > 0 ? Math.max(...all) : 1;
  const minV = all.length > 0 ? Math.min(...all) : 1;
  let lo: number;
  let hi: number;
  let ticks: number[];
  if (chart.log) {
    lo = 10 ** Math.floor(Math.log10(minV));
    hi = 10 ** Math.ceil(Math.log10(maxV));
    if (hi === lo) hi = lo * 10;
    ticks = [];
    for (let t = lo; t <= hi * 1.0001; t *= 10) ticks.push(t);
  } else {
    lo = 0;
    const step = niceStep(maxV);
    hi = Math.ceil(maxV / step) * step;
    ticks = [];
    for (let t = 0; t <= hi + step / 2; t += step) ticks.push(t);
  }
  const x = (v: number) => {
    const f = chart.log
      ? (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))
      : (v - lo) / (hi - lo);
    return labelW + Math.max(0, Math.min(1, f)) * plotW;
  };

  return { ticks, x };
}

/** The legend: a swatch per series (and the marker's line), four to a row below the axis. */
function legendLines(chart: BarChart, labelW: number, axisY: number): string[] {
  const out: string[] = [];
  const legend = [...chart.series.map((s) => ({ name: s.name, color: s.color, marker: false }))];
  if (chart.markerLabel) legend.push({ name: chart.markerLabel, color: "#222", marker: true });
  legend.forEach((l, i) => {
    const lx = labelW + (i % 4) * 150;
    const ly = axisY + 38 + Math.floor(i / 4) * 20;
    if (l.marker)
      out.push(
        `<line x1="${lx + 6}" y1="${ly - 10}" x2="${lx + 6}" y2="${ly + 2}" stroke="#222" stroke-width="2"/>`,
      );
    else out.push(`<rect x="${lx}" y="${ly - 10}" width="14" height="12" fill="${l.color}"/>`);
    out.push(`<text x="${lx + 20}" y="${ly}">${esc(l.name)}</text>`);
  });
  return out;
}
