import { transferMarkdown } from "../transfer/transfer-report.js";
import { markdownTable } from "./format.js";
import { REFERENCE_FIGURES } from "./reference.js";
import { machineRows, methodBullets, whatRan } from "./run-description.js";
import { measuredSeedTables } from "./seed-comparison.js";
import type { BenchReport } from "./summary.js";
import { allTables } from "./tables.js";
import { doubtLine } from "./trust.js";

/**
 * The Markdown report: what was measured, how, on what machine, every table with its ratios,
 * the spread over repeats, what was not available, and the labelled reference figures.
 * `chartFiles` are linked relative to the report (pass names of SVGs written beside it).
 */
export function renderMarkdown(report: BenchReport, chartFiles: readonly string[] = []): string {
  const s = report.settings;
  const out: string[] = [];
  out.push(
    "# nearwire-bench report",
    "",
    `Run ${report.startedAt} → ${report.finishedAt}, command \`${["nearwire-bench", ...report.command].join(" ")}\` (profile: ${s.profile}).`,
    "",
    "## Machine",
    "",
    markdownTable(["", "value"], machineRows(report)),
    "",
    "## How it was measured",
    "",
    ...methodBullets(report).map((b) => `- ${b}`),
    "",
  );
  if (!report.messagesFromPackage) {
    out.push(
      "> **Note:** `@nearwire/bench-messages` was not available; JSON stand-in messages were used and codec rows other than json are absent.",
      "",
    );
  }
  const ran = whatRan(report);
  const code = (xs: string[]) => xs.map((x) => `\`${x}\``).join(", ") || "none";
  const missing = report.availability.filter((a) => a.status !== "ok");
  out.push(
    "## What ran",
    "",
    `Transports: ${code(ran.transports)}. Codecs: ${code(ran.codecs)}.`,
    "",
  );
  if (missing.length > 0) {
    out.push(
      "Packages not available:",
      "",
      markdownTable(
        ["package", "status", "detail"],
        missing.map((a) => [a.name, a.status, a.detail ?? ""]),
      ),
      "",
    );
  }
  const failed = report.summaries.filter((x) => x.error !== undefined);
  if (failed.length > 0) {
    out.push(
      "Failed cases:",
      "",
      markdownTable(
        ["case", "error"],
        failed.map((f) => [f.spec.key, (f.error ?? "").slice(0, 200)]),
      ),
      "",
    );
  }
  const doubted = doubtLine(report.summaries);
  if (doubted !== undefined) out.push(`${doubted} The tables mark them; see their notes.`, "");
  for (const t of allTables(report.codecs, report.summaries)) {
    out.push(`## ${t.title}`, "", t.note, "", markdownTable(t.headers, t.rows), "");
  }
  if (chartFiles.length > 0) {
    out.push("## Charts", "");
    for (const f of chartFiles) out.push(`![${f}](${f})`, "");
  }
  if (report.transfer !== undefined) out.push(transferMarkdown(report.transfer), "");
  out.push(
    "## Reference (other hardware, Go)",
    "",
    "Published figures of Go programs on other machines. Other hardware and another language: for orientation only, never compared to the rows above.",
    "",
    markdownTable(
      ["reference", "p50", "p99", "rate", "setting"],
      REFERENCE_FIGURES.map((r) => [r.what, r.p50, r.p99, r.rate, r.setting]),
    ),
    "",
  );
  // A table whose rows this run did not measure (a --filter run) is left out, not shown empty.
  const seeds = measuredSeedTables(report);
  if (seeds.length === 0) return out.join("\n");
  out.push(
    "## The published Go tables, reproduced",
    "",
    "This run's figures in the shape of the published tables above, next to the published numbers. The published columns are other hardware and Go: they are there for orientation and are never divided by this run's figures.",
    "",
  );
  for (const { table: t } of seeds)
    out.push(`### ${t.title}`, "", t.note, "", markdownTable(t.headers, t.rows), "");
  return out.join("\n");
}
