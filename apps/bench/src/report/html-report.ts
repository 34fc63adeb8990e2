import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { transferHtml } from "../transfer/transfer-report.js";
import { type ChartGroup, htmlCharts } from "./html-charts.js";
import { ERROR_HOOK_JS, REPORT_JS } from "./html-script.js";
import { REPORT_CSS } from "./html-style.js";
import { recommend } from "./recommendations.js";
import { REFERENCE_FIGURES } from "./reference.js";
import { machineRows, methodBullets, whatRan } from "./run-description.js";
import { measuredSeedTables } from "./seed-comparison.js";
import type { BenchReport } from "./summary.js";
import type { Table } from "./table.js";
import { allTables } from "./tables.js";
import { DOUBT_LEGEND, doubtLine } from "./trust.js";

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** The little Markdown the shared texts use (`**bold**`, `` `code` ``), as HTML. */
export function inlineMarkdown(text: string): string {
  return escapeHtml(text)
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/`([^`]+)`/g, "<code>$1</code>");
}

/** Text that is safe inside an inline `<script>` element. */
function scriptSafe(code: string): string {
  return code.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}

let chartJs: string | undefined;

/**
 * The minified Chart.js build (UMD) from node_modules, read once; it is inlined into every
 * report so the page needs no network. Undefined when the package cannot be found.
 */
export function chartJsSource(): string | undefined {
  if (chartJs === undefined) {
    try {
      const entry = createRequire(import.meta.url).resolve("chart.js");
      chartJs = readFileSync(join(dirname(entry), "chart.umd.min.js"), "utf8");
    } catch {
      return undefined;
    }
  }
  return chartJs;
}

/** A slug usable as an element id. */
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/**
 * One table as HTML. Cells with a number behind them carry it in `data-v` (sorting, and the
 * report's browser test); rows carry their first cell in `data-id`.
 */
export function tableHtml(
  t: Table,
  id: string,
  options: { sortable: boolean; filter: boolean },
): string {
  const out: string[] = [];
  if (options.filter && t.rows.length > 12) {
    out.push(
      `<div class="table-tools"><input type="search" placeholder="filter cases: uds json 64B" data-filter="${id}" aria-label="filter ${escapeHtml(t.title)}"><span class="muted" id="${id}-count">${t.rows.length} rows</span></div>`,
    );
  }
  const published = t.headers.map((h) => h.startsWith("published"));
  const lastPublished = published.lastIndexOf(true);
  const cls = (i: number) =>
    published[i] ? ` class="published${i === lastPublished ? " last" : ""}"` : "";
  out.push(
    `<div class="table-wrap${t.rows.length <= 20 ? " short" : ""}"><table id="${id}"${options.sortable ? ' class="sortable"' : ""}>`,
    `<thead><tr>${t.headers.map((h, i) => `<th scope="col"${i === lastPublished + 1 && i > 0 ? ' class="id"' : cls(i)}>${escapeHtml(h)}</th>`).join("")}</tr></thead>`,
    "<tbody>",
  );
  // Published cells are written once per group, spanning the rows below them that leave them blank.
  const span = (r: number) => {
    let n = 1;
    while (r + n < t.rows.length && t.rows[r + n]?.[0] === "") n++;
    return n;
  };
  t.rows.forEach((row, r) => {
    const cells: string[] = [];
    row.forEach((text, i) => {
      if (published[i]) {
        if (t.rows[r]?.[0] === "") return;
        const n = span(r);
        cells.push(`<td${cls(i)}${n > 1 ? ` rowspan="${n}"` : ""}>${escapeHtml(text)}</td>`);
        return;
      }
      const v = t.values?.[r]?.[i];
      const failed = text.startsWith("failed:");
      const classes = [
        ...(i === 0 || (lastPublished >= 0 && i === lastPublished + 1) ? ["id"] : []),
        ...(failed ? ["text", "failed"] : []),
        ...(text.startsWith("⚠") ? ["doubt"] : []),
      ];
      const attrs = [
        v === undefined || !Number.isFinite(v) ? "" : ` data-v="${v}"`,
        classes.length > 0 ? ` class="${classes.join(" ")}"` : "",
      ].join("");
      cells.push(`<td${attrs}>${escapeHtml(text)}</td>`);
    });
    const key = published[0] ? (row[published.lastIndexOf(true) + 1] ?? "") : (row[0] ?? "");
    out.push(`<tr data-id="${escapeHtml(key)}">${cells.join("")}</tr>`);
  });
  out.push("</tbody></table></div>");
  return out.join("\n");
}

function chartsHtml(groups: readonly ChartGroup[]): string {
  return groups
    .map(
      (g) =>
        `<h3 id="chart-${g.id}">${escapeHtml(g.title)}</h3>\n<p class="note">${escapeHtml(g.note)}</p>\n<div class="grid">\n${g.charts
          .map(
            (c) =>
              `<figure class="chart-card" data-chart="${escapeHtml(c.id)}"><button type="button"></button><div class="chart-box"><canvas role="img" aria-label="${escapeHtml(c.title)}"></canvas></div></figure>`,
          )
          .join("\n")}\n</div>`,
    )
    .join("\n");
}

/** An `<h2>` section of the report: its nav link and its HTML, or nothing when it is empty. */
interface Section {
  id: string;
  nav: string;
  html: string[];
}

/**
 * The summary: what to pick (among the rows nothing casts doubt on), then the notices — stand-in
 * messages, packages not available, failed cases, rows flagged ⚠. Undefined when there is
 * neither a pick nor a notice.
 */
function summarySection(report: BenchReport): Section | undefined {
  const picks = recommend(report.summaries, report.codecs);
  const missing = report.availability.filter((a) => a.status !== "ok");
  const failed = report.summaries.filter((x) => x.error !== undefined);
  const doubted = doubtLine(report.summaries);
  const notices: string[] = [];
  if (doubted !== undefined)
    notices.push(`<p class="doubt">${inlineMarkdown(`${doubted} ${DOUBT_LEGEND}`)}</p>`);
  if (!report.messagesFromPackage) {
    notices.push(
      '<p class="failed"><code>@nearwire/bench-messages</code> was not available: JSON stand-in messages were used and codec rows other than json are absent.</p>',
    );
  }
  if (missing.length > 0) {
    notices.push(
      "<h3>Packages not available</h3>",
      tableHtml(
        {
          title: "packages not available",
          note: "",
          headers: ["package", "status", "detail"],
          rows: missing.map((a) => [a.name, a.status, a.detail ?? ""]),
        },
        "not-available",
        { sortable: false, filter: false },
      ),
    );
  }
  if (failed.length > 0) {
    notices.push(
      '<h3 class="failed">Failed cases</h3>',
      tableHtml(
        {
          title: "failed cases",
          note: "",
          headers: ["case", "error"],
          rows: failed.map((f) => [f.spec.key, (f.error ?? "").slice(0, 200)]),
        },
        "failed-cases",
        { sortable: false, filter: false },
      ),
    );
  }
  if (picks.length === 0 && notices.length === 0) return undefined;
  const cards =
    picks.length === 0
      ? []
      : [
          '<p class="note">Among the cross-process RPC rows of this run that nothing casts doubt on (engine, channel, baseline and ⚠ rows are in the tables). CPU is per message under load: a <code>spin</code> ring also keeps a core busy while idle, <code>adaptive</code> for 50 µs after each message.</p>',
          '<div class="cards">',
          ...picks.map(
            (p) =>
              `<div class="card"><div class="goal">${escapeHtml(p.goal)}</div><div class="pick">${escapeHtml(p.pick).replace(/\//g, "/<wbr>")}</div><div class="figure">${escapeHtml(p.figure)}</div><div class="detail">${escapeHtml(p.detail)}</div></div>`,
          ),
          "</div>",
        ];
  const title = picks.length === 0 ? "Notes" : "What to pick";
  return {
    id: "summary",
    nav: picks.length === 0 ? "Notes" : "Summary",
    html: [`<h2 id="summary">${title}</h2>`, ...cards, ...notices],
  };
}

/** The charts (small multiples per payload); undefined when no chart has data. */
function chartsSection(
  groups: readonly ChartGroup[],
  lib: string | undefined,
): Section | undefined {
  if (groups.length === 0) return undefined;
  const html = ['<h2 id="charts">Charts</h2>'];
  if (lib === undefined) {
    html.push(
      '<p class="failed">Chart.js was not found in node_modules when this report was written: charts left out (the tables hold every number).</p>',
    );
  } else {
    html.push(
      '<p class="note">One chart per payload, transports along the axis, one bar per codec (<code>frame</code> = channel layer, <code>bytes</code> = hand-written baseline). Axes are linear unless the values span more than 20×; each chart\'s button switches. Hover a bar for the exact figure.</p>',
      chartsHtml(groups),
    );
  }
  return { id: "charts", nav: "Charts", html };
}

/** The sortable tables; undefined when the run has none. */
function tablesSection(tables: readonly Table[]): Section | undefined {
  if (tables.length === 0) return undefined;
  const html = [
    '<h2 id="tables">Tables</h2>',
    '<p class="note">Click a column header to sort; type in the box to filter by case id.</p>',
  ];
  for (const t of tables) {
    const id = `table-${slug(t.title.split("(")[0] ?? t.title)}`;
    html.push(
      `<h3 id="${id}-h">${escapeHtml(t.title)}</h3>`,
      `<p class="note">${escapeHtml(t.note)}</p>`,
      tableHtml(t, id, { sortable: true, filter: true }),
    );
  }
  return { id: "tables", nav: "Tables", html };
}

/**
 * This run in the shape of the published Go tables (only those it measured rows of), then the
 * reference figures. A run that measured none of their rows shows the reference figures alone.
 */
function publishedSection(report: BenchReport): Section {
  const seeds = measuredSeedTables(report);
  const html =
    seeds.length === 0
      ? ['<h2 id="published">Reference (other hardware, Go)</h2>']
      : [
          '<h2 id="published">The published Go tables, reproduced</h2>',
          "<p class=\"note\">This run's figures in the shape of the published Go tables (the reference figures below), next to the published numbers. <strong>The shaded columns are other hardware and Go</strong>: they are there for orientation and are never divided by this run's figures.</p>",
          ...seeds.flatMap(({ key, table: t }) => [
            `<h3>${escapeHtml(t.title)}</h3>`,
            `<p class="note">${inlineMarkdown(t.note)}</p>`,
            tableHtml(t, `seed-${key}`, { sortable: false, filter: false }),
          ]),
          "<h3>Reference (other hardware, Go)</h3>",
        ];
  html.push(
    '<p class="note">Published figures of Go programs on other machines. Other hardware and another language: for orientation only, never compared to measured rows.</p>',
    tableHtml(
      {
        title: "reference",
        note: "",
        headers: ["reference", "p50", "p99", "rate", "setting"],
        rows: REFERENCE_FIGURES.map((r) => [r.what, r.p50, r.p99, r.rate, r.setting]),
      },
      "reference",
      { sortable: false, filter: false },
    ),
  );
  return {
    id: "published",
    nav: seeds.length === 0 ? "Reference figures" : "Published Go tables, reproduced",
    html,
  };
}

/** The machine and the method. */
function machineSection(report: BenchReport): Section {
  const ran = whatRan(report);
  return {
    id: "machine",
    nav: "Machine and method",
    html: [
      '<h2 id="machine">Machine and method</h2>',
      '<dl class="machine">',
      ...machineRows(report).map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`),
      `<dt>transports run</dt><dd>${escapeHtml(ran.transports.join(", ") || "none")}</dd>`,
      `<dt>codecs run</dt><dd>${escapeHtml(ran.codecs.join(", ") || "none")}</dd>`,
      "</dl>",
      '<ul class="method">',
      ...methodBullets(report).map((b) => `<li>${inlineMarkdown(b)}</li>`),
      "</ul>",
    ],
  };
}

/**
 * The self-contained HTML report: one file with inline CSS, inline JS and Chart.js inlined, so
 * it opens anywhere without a network. Summary first (what to pick for latency, throughput,
 * CPU, codec), then the charts (small multiples per payload), the sortable tables, this run in
 * the shape of the published Go tables beside them, the reference figures, the machine and
 * the method. A section this run measured nothing for (a `--filter` run) is left out, and so is
 * its link.
 */
export function renderHtml(report: BenchReport): string {
  const s = report.settings;
  const m = report.machine;
  const groups = htmlCharts(report.summaries, report.codecs, report.found.codecs);
  const lib = chartJsSource();
  const command = ["nearwire-bench", ...report.command].join(" ");
  const transfer: Section | undefined =
    report.transfer === undefined
      ? undefined
      : {
          id: "transfer",
          nav: "Transfer",
          html: [
            transferHtml(
              report.transfer,
              (t, id) => tableHtml(t, id, { sortable: true, filter: false }),
              escapeHtml,
            ),
          ],
        };
  const sections = [
    summarySection(report),
    chartsSection(groups, lib),
    tablesSection(allTables(report.codecs, report.summaries)),
    publishedSection(report),
    transfer,
    machineSection(report),
  ].filter((x): x is Section => x !== undefined);

  const body: string[] = [
    "<header>",
    "<h1>nearwire-bench report</h1>",
    `<div class="muted">${escapeHtml(`${report.startedAt} → ${report.finishedAt}`)} · <code>${escapeHtml(command)}</code> · profile ${escapeHtml(s.profile)} · ${escapeHtml(`${m.cpuModel} ×${m.cores}, Node.js ${m.node}, ${m.platform} ${m.kernel}`)}</div>`,
    "<nav>",
    ...sections.map((x) => `<a href="#${x.id}">${x.nav}</a>`),
    "</nav>",
    "</header>",
    "<main>",
    '<div id="errors" role="alert" hidden></div>',
    ...sections.flatMap((x) => x.html),
    "</main>",
    `<footer>Written by nearwire-bench from the run's JSON report. Self-contained: inline CSS and scripts${lib === undefined ? "" : ", Chart.js (MIT) inlined"}; it loads nothing from the network.</footer>`,
  ];

  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>nearwire-bench report · ${escapeHtml(report.startedAt)}</title>`,
    `<style>${REPORT_CSS}</style>`,
    `<script>${ERROR_HOOK_JS}</script>`,
    "</head>",
    "<body>",
    ...body,
    `<script type="application/json" id="chart-data">${JSON.stringify(lib === undefined ? [] : groups).replace(/</g, "\\u003c")}</script>`,
    lib === undefined ? "" : `<script>${scriptSafe(lib)}</script>`,
    `<script>${REPORT_JS}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
