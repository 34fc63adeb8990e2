import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { PACKAGE_DIR } from "../src/cli/bench.js";
import { consoleLines, dumpDom, findChromium, screenshot } from "../src/report/chromium.js";
import { fmtCount, fmtNs } from "../src/report/format.js";
import { htmlCharts } from "../src/report/html-charts.js";
import { renderHtml } from "../src/report/html-report.js";
import type { BenchReport } from "../src/report/summary.js";

/** The committed run: a real, full report. */
const committed = fileURLToPath(new URL("../results/report.json", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "nwb-html-"));
after(() => rmSync(work, { recursive: true, force: true }));
const chromium = findChromium();

/** Cells (text and data-v) of the row `id` in table `table` of a DOM dump. */
function cells(dom: string, table: string, id: string): { text: string; v: number }[] {
  const start = dom.indexOf(`<table id="${table}"`);
  assert.ok(start >= 0, `table ${table}`);
  const body = dom.slice(start, dom.indexOf("</table>", start));
  const at = body.indexOf(`<tr data-id="${id}">`);
  assert.ok(at >= 0, `row ${id} in ${table}`);
  const tr = body.slice(at, body.indexOf("</tr>", at));
  return [...tr.matchAll(/<td([^>]*)>(.*?)<\/td>/g)].map((m) => ({
    text: m[2] ?? "",
    v: Number(/data-v="([^"]*)"/.exec(m[1] ?? "")?.[1] ?? Number.NaN),
  }));
}

test("HTML report in headless Chromium: renders without console errors, tables match the JSON, screenshot", async (t) => {
  if (chromium === undefined) {
    t.skip("chromium not installed (apt-get install chromium)");
    return;
  }
  const report = JSON.parse(readFileSync(committed, "utf8")) as BenchReport;
  const html = join(work, "report.html");
  writeFileSync(html, renderHtml(report));
  // The same page without Chart.js: its error hook must report the failure (so the check can fail).
  const broken = join(work, "broken.html");
  writeFileSync(
    broken,
    renderHtml(report).replace(/<script>\/\*!\n \* Chart\.js[\s\S]*?<\/script>/, ""),
  );
  const png = join(PACKAGE_DIR, "out", "report-screenshot.png");
  mkdirSync(join(PACKAGE_DIR, "out"), { recursive: true });
  const [page, bad] = await Promise.all([
    dumpDom(chromium, html),
    dumpDom(chromium, broken),
    screenshot(chromium, html, png),
  ]);

  const dom = page.stdout;
  assert.deepEqual(consoleLines(page.stderr), [], "the page logs nothing");
  assert.equal(/<html[^>]*data-errors/.test(dom), false, "no script error");
  assert.match(dom, /<div id="errors" role="alert" hidden=""><\/div>/);
  const charts = htmlCharts(report.summaries, report.codecs, report.found.codecs).flatMap(
    (g) => g.charts,
  ).length;
  assert.match(dom, new RegExp(`<body data-charts="${charts}" data-ready="1">`));
  // Chart.js sized every canvas to its box.
  const canvases = [...dom.matchAll(/<canvas[^>]*width="(\d+)"[^>]*height="(\d+)"/g)];
  assert.equal(canvases.length, charts);
  for (const c of canvases) assert.ok(Number(c[1]) > 300 && Number(c[2]) > 200, c[0]);

  // A few rows of every mode: the shown text and the number behind it equal the JSON's.
  for (const mode of ["latency", "throughput", "stream"] as const) {
    const rows = report.summaries.filter((s) => s.spec.mode === mode && s.runs > 0);
    for (const s of [rows[0], rows[Math.floor(rows.length / 2)], rows[rows.length - 1]]) {
      assert.ok(s);
      const c = cells(dom, `table-${mode === "stream" ? "one-way-streaming" : mode}`, s.spec.id);
      assert.equal(c[0]?.text, s.spec.id);
      if (mode === "latency") {
        assert.equal(c[2]?.v, s.p50Ns, `${s.spec.key} p50`);
        assert.equal(c[2]?.text, fmtNs(s.p50Ns));
        assert.equal(c[4]?.v, s.p99Ns, `${s.spec.key} p99`);
      } else {
        assert.equal(c[2]?.v, s.msgsPerSec, `${s.spec.key} msgs/s`);
        assert.equal(c[2]?.text, fmtCount(s.msgsPerSec));
      }
    }
  }
  const codec = report.codecs[0];
  if (codec) {
    const c = cells(dom, "table-codecs", `${codec.codec}/${codec.message}`);
    assert.equal(c[2]?.v, codec.encodeOpsPerSec);
    assert.equal(c[3]?.v, codec.decodeOpsPerSec);
  }

  assert.match(bad.stdout, /<html lang="en" data-errors="1">/);
  assert.match(bad.stdout, /<div id="errors" role="alert">This page's script reported 1 problem/);
  assert.match(bad.stdout, /Chart\.js is missing from the page/);

  const image = readFileSync(png);
  assert.equal(image.subarray(1, 4).toString(), "PNG");
  assert.equal(image.readUInt32BE(16), 1400, "width");
  assert.equal(image.readUInt32BE(20), 1700, "height");
  assert.ok(image.length > 50_000, `a drawn page, not a blank one (${image.length} B)`);
});
