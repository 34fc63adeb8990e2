/** Number formatting and plain-text tables shared by the terminal, Markdown and CI output. */

/** Nanoseconds as `850 ns`, `53.2 µs`, `1.23 ms`, `2.10 s`; `—` when missing. */
export function fmtNs(ns: number | undefined): string {
  if (ns === undefined || !Number.isFinite(ns)) return "—";
  if (ns < 999.5) return `${Math.round(ns)} ns`;
  if (ns < 999_500) return `${(ns / 1e3).toPrecision(3)} µs`;
  if (ns < 999_500_000) return `${(ns / 1e6).toPrecision(3)} ms`;
  return `${(ns / 1e9).toPrecision(3)} s`;
}

/** A rate as `950`, `12.3 k`, `1.23 M`. */
export function fmtCount(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return "—";
  if (n < 999.5) return Number.isInteger(n) ? String(n) : n.toPrecision(3);
  if (n < 999_500) return `${(n / 1e3).toPrecision(3)} k`;
  if (n < 999_500_000) return `${(n / 1e6).toPrecision(3)} M`;
  return `${(n / 1e9).toPrecision(3)} G`;
}

/** A number with 3 significant digits, `—` when missing. */
export function fmt3(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return "—";
  return n >= 999.5 ? Math.round(n).toString() : n.toPrecision(3);
}

/** A ratio as `1.18×`. */
export function fmtRatio(r: number | undefined): string {
  return r === undefined || !Number.isFinite(r) ? "—" : `${r.toFixed(2)}×`;
}

/** Bytes as `64 B`, `64 KiB`, `1.5 MiB`. */
export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${+(n / 1024).toFixed(1)} KiB`;
  return `${+(n / (1024 * 1024)).toFixed(1)} MiB`;
}

/** A fixed-width text table; columns after the first are right-aligned. */
export function textTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join("  ");
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** A GitHub Markdown table; columns after the first are right-aligned. */
export function markdownTable(headers: string[], rows: string[][]): string {
  const esc = (s: string) => s.replace(/\|/g, "\\|");
  return [
    `| ${headers.map(esc).join(" | ")} |`,
    `|${headers.map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`,
    ...rows.map((r) => `| ${r.map(esc).join(" | ")} |`),
  ].join("\n");
}
