import type { CaseSummary } from "./summary.js";

/**
 * Why a row's figures are not a result: its warm-up never settled (`unsteady`), other processes
 * shared the CPUs while it ran (`loaded`), or its runs disagree (`unstable`). Such a row is
 * marked in every table and left out of "What to pick".
 */
export type Doubt = "unsteady" | "loaded" | "unstable";

/** The doubts about one row, in a fixed order; empty when its figures can be trusted. */
export function doubts(s: CaseSummary): Doubt[] {
  const out: Doubt[] = [];
  if (s.unsteady === true) out.push("unsteady");
  if (s.loaded === true) out.push("loaded");
  if (s.unstable === true) out.push("unstable");
  return out;
}

/** True when nothing casts doubt on the row (see {@link Doubt}). */
export const trusted = (s: CaseSummary): boolean => doubts(s).length === 0;

/** The table cell of a row's doubts: `⚠ unsteady, loaded`, or empty. */
export function doubtCell(s: CaseSummary): string {
  const d = doubts(s);
  return d.length === 0 ? "" : `⚠ ${d.join(", ")}`;
}

/** What the ⚠ marks mean: the legend printed with every table that has a flags column. */
export const DOUBT_LEGEND =
  "⚠ = not a result: unsteady = a run's warm-up reached its cap before three successive 100 ms windows agreed (`warmup.steady: false` in the JSON); loaded = other processes shared the CPUs while a run was measured (they used more than a core's worth of CPU during its window; without /proc/stat, the 1-minute load average exceeded the core count); unstable = the runs disagree (see the spread table). The HTML report's What to pick leaves these rows out; measure them again on an idle machine, with --repeat.";

/**
 * One line naming how many measured rows are flagged and why (`⚠ 3 of 40 rows are not
 * results: 2 unsteady, 1 loaded.`), or undefined when none is.
 */
export function doubtLine(rows: readonly CaseSummary[]): string | undefined {
  const measured = rows.filter((s) => s.runs > 0);
  const flagged = measured.filter((s) => !trusted(s));
  if (flagged.length === 0) return undefined;
  const count = (d: Doubt) => flagged.filter((s) => doubts(s).includes(d)).length;
  const why = (["unsteady", "loaded", "unstable"] as const)
    .filter((d) => count(d) > 0)
    .map((d) => `${count(d)} ${d}`)
    .join(", ");
  return `⚠ ${flagged.length} of ${measured.length} rows are not results: ${why}.`;
}
