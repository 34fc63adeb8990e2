#!/usr/bin/env node
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { renderCharts } from "../report/charts.js";
import { findChromium, screenshot } from "../report/chromium.js";
import { renderHtml } from "../report/html-report.js";
import { renderMarkdown } from "../report/markdown-report.js";
import { type BenchReport, withRunFlags } from "../report/summary.js";

/** Usage of `render.js`. */
export const RENDER_USAGE = `node apps/bench/dist/cli/render.js --from <report.json> [outputs]

Re-renders the reports of a saved run from its JSON (no measuring).
  --from <file>          the run's report.json
  --html <file>          the self-contained HTML report
  --markdown <file>      the Markdown report (links the SVGs of --svg, when given)
  --svg <dir>            the SVG charts
  --screenshot <png>     a PNG of the top of the HTML report, taken with headless Chromium
With no output option, writes report.html beside the JSON.
`;

/** Renders what the command line asks; returns the exit code. */
export async function render(argv: readonly string[]): Promise<number> {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(argv).values;
  } catch (err) {
    process.stderr.write(`render: ${(err as Error).message}\n\n${RENDER_USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(RENDER_USAGE);
    return 0;
  }
  if (values.from === undefined) {
    process.stderr.write(`render: --from <report.json> is required\n\n${RENDER_USAGE}`);
    return 2;
  }
  if (values.screenshot !== undefined && values.html === undefined) {
    process.stderr.write("render: --screenshot needs --html (it shoots that file)\n");
    return 2;
  }
  const report = withRunFlags(JSON.parse(readFileSync(values.from, "utf8")) as BenchReport);
  const none =
    values.html === undefined && values.markdown === undefined && values.svg === undefined;
  const html = none ? join(dirname(values.from), "report.html") : values.html;
  const written: string[] = [];
  const write = (file: string, text: string) => {
    mkdirSync(dirname(resolve(file)), { recursive: true });
    writeFileSync(file, text);
    written.push(file);
  };
  let charts: string[] = [];
  if (values.svg !== undefined) {
    for (const [name, svg] of Object.entries(renderCharts(report.codecs, report.summaries))) {
      write(join(values.svg, name), svg);
      charts.push(join(values.svg, name));
    }
  }
  if (values.markdown !== undefined) {
    const mdDir = dirname(resolve(values.markdown));
    charts = charts.map((c) => relative(mdDir, resolve(c)) || basename(c));
    write(values.markdown, renderMarkdown(report, charts));
  }
  if (html !== undefined) write(html, renderHtml(report));
  if (values.screenshot !== undefined && html !== undefined) {
    const bin = findChromium();
    if (bin === undefined) {
      process.stderr.write(
        "render: no chromium on PATH (apt-get install chromium): no screenshot\n",
      );
      return 1;
    }
    mkdirSync(dirname(resolve(values.screenshot)), { recursive: true });
    await screenshot(bin, html, values.screenshot);
    written.push(values.screenshot);
  }
  for (const f of written) process.stdout.write(`written: ${f}\n`);
  return 0;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      from: { type: "string" },
      html: { type: "string" },
      markdown: { type: "string" },
      svg: { type: "string" },
      screenshot: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  render(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(
        `render: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
