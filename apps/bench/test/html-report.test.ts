import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import { consoleLines, findChromium } from "../src/report/chromium.js";
import { fmtCount, fmtNs } from "../src/report/format.js";
import { codecColors, htmlCharts, linearFits } from "../src/report/html-charts.js";
import { escapeHtml, inlineMarkdown, renderHtml } from "../src/report/html-report.js";
import { renderMarkdown } from "../src/report/markdown-report.js";
import { recommend } from "../src/report/recommendations.js";
import { payloadsAround, seedComparison } from "../src/report/seed-comparison.js";
import { fixtureReport, HISTORY } from "./support/fixture-report.js";
import { found } from "./support/found.js";

/** The cells of the row whose `data-id` is `id` in the table with element id `table`. */
function row(html: string, table: string, id: string): { text: string; v?: string }[] {
  const start = html.indexOf(`<table id="${table}"`);
  assert.ok(start >= 0, `table ${table}`);
  const body = html.slice(start, html.indexOf("</table>", start));
  const tr = new RegExp(`<tr data-id="${id.replace(/[/.]/g, "\\$&")}">(.*?)</tr>`).exec(body);
  assert.ok(tr, `row ${id} in ${table}`);
  return [...(tr[1] ?? "").matchAll(/<td([^>]*)>(.*?)<\/td>/g)].map((m) => {
    const v = /data-v="([^"]*)"/.exec(m[1] ?? "")?.[1];
    return v === undefined ? { text: m[2] ?? "" } : { text: m[2] ?? "", v };
  });
}

test("HTML report: one file, nothing loaded from the network, Chart.js inlined", () => {
  const html = renderHtml(fixtureReport());
  assert.match(html, /^<!doctype html>/);
  assert.equal(/<script[^>]+\bsrc=/i.test(html), false, "no external script");
  assert.equal(/<link\b/i.test(html), false, "no stylesheet link");
  assert.equal(/\b(src|href)="(https?:)?\/\//i.test(html), false, "no remote URL");
  assert.match(html, /Chart\.js v4\.\d+\.\d+/);
  const data = /<script type="application\/json" id="chart-data">(.*?)<\/script>/s.exec(html);
  assert.ok(data);
  const groups = JSON.parse(data[1] ?? "null");
  assert.deepEqual(
    groups.map((g: { id: string }) => g.id),
    ["latency", "throughput", "stream", "cpu", "codecs"],
  );
  for (const g of groups)
    for (const c of g.charts) assert.match(html, new RegExp(`data-chart="${c.id}"`), c.id);
});

test("HTML report: summary first, then charts, tables, the published tables, machine and method", () => {
  const html = renderHtml(fixtureReport());
  const at = (s: string) => {
    const i = html.indexOf(s);
    assert.ok(i >= 0, s);
    return i;
  };
  const order = [
    '<h2 id="summary">',
    '<h2 id="charts">',
    '<h2 id="tables">',
    '<h2 id="published">',
    '<h2 id="machine">',
  ].map(at);
  assert.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
  );
  assert.match(html, /<div class="pick">shm-ring-spin\/<wbr>json\/<wbr>64B<\/div>/);
  assert.match(html, /<dt>CPU<\/dt><dd>Test CPU<\/dd>/);
  assert.match(html, /<strong>Latency<\/strong>: one call in flight/);
  assert.match(html, /@nearwire\/grpc-uds<\/td><td>absent/);
  assert.match(html, /class="text failed">failed: worker exited/);
  // The published figures appear only in the published section, after every measured table.
  assert.equal(html.slice(0, at('<h2 id="published">')).includes("47 µs"), false);
});

test("HTML tables: each cell shows the JSON's figure and carries the number behind it", () => {
  const r = fixtureReport();
  const html = renderHtml(r);
  const uds = r.summaries.find((s) => s.spec.key === "latency:uds/json/64B");
  assert.ok(uds);
  const cells = row(html, "table-latency", "uds/json/64B");
  assert.equal(cells[2]?.text, fmtNs(uds.p50Ns));
  assert.equal(Number(cells[2]?.v), uds.p50Ns);
  assert.equal(Number(cells[4]?.v), uds.p99Ns);
  assert.equal(cells[10]?.text, "—", "heap/msg: not in this fixture");
  assert.equal(cells[11]?.text, "1.19× bare-net-uds/bytes/64B");
  const thr = r.summaries.find((s) => s.spec.key === "throughput:uds/json/64B");
  assert.ok(thr);
  const t = row(html, "table-throughput", "uds/json/64B");
  assert.equal(t[2]?.text, fmtCount(thr.msgsPerSec));
  assert.equal(Number(t[2]?.v), thr.msgsPerSec);
  const codec = row(html, "table-codecs", "raw/tick");
  assert.equal(Number(codec[2]?.v), 2_000_000);
  assert.equal(codec[4]?.text, fmtCount(8_000_000), "in place encode");
  assert.equal(codec[5]?.text, "4.00×");
  assert.equal(row(html, "table-codecs", "json/tick")[4]?.text, "—", "no in-place figure");
  assert.match(html, /<table id="table-latency" class="sortable">/);
});

test("the reports cite no file outside the repository and tell no history", () => {
  const r = fixtureReport();
  const seeds = seedComparison(r);
  for (const [what, text] of [
    ["HTML", renderHtml(r)],
    ["Markdown", renderMarkdown(r)],
    ["published tables", [seeds.ipc, seeds.spsc, seeds.worker].map((t) => t.note).join("\n")],
  ])
    assert.doesNotMatch(text as string, HISTORY, what);
});

test("escaping: text from the run cannot open a tag", () => {
  assert.equal(escapeHtml(`<a href="x">&'`), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  assert.equal(inlineMarkdown("**a** `<b>`"), "<strong>a</strong> <code>&lt;b&gt;</code>");
  const r = fixtureReport();
  r.command = ["--filter", "</script><script>alert(1)</script>"];
  const html = renderHtml(r);
  assert.equal(html.includes("<script>alert(1)"), false);
});

test("what to pick: lowest p50, lowest CPU, most msgs/s, fastest codec", () => {
  const r = fixtureReport();
  const picks = recommend(r.summaries, r.codecs);
  const by = new Map(picks.map((p) => [p.goal, p]));
  const get = (goal: string) => found(by.get(goal), goal);
  assert.equal(get("Latency (small messages)").pick, "shm-ring-spin/json/64B");
  assert.equal(get("Latency (small messages)").figure, `p50 ${fmtNs(5_100)}`);
  assert.equal(get("Latency over a socket (no native addon)").pick, "uds/json/64B");
  assert.equal(get("Throughput (64 calls in flight)").pick, "uds/json/64B");
  assert.equal(get("Codec (Tick)").pick, "raw");
  // Channel and baseline rows are never the pick, even when faster.
  for (const p of picks) assert.equal(/^(bare-|uds-channel)/.test(p.pick), false, p.pick);
  assert.deepEqual(recommend([], []), []);
});

test("charts: one per payload, a bar per codec, linear unless the values span more than 20x", () => {
  const r = fixtureReport();
  const groups = htmlCharts(r.summaries, r.codecs, r.found.codecs);
  const latency = groups.find((g) => g.id === "latency");
  assert.ok(latency);
  assert.deepEqual(
    latency.charts.map((c) => c.id),
    ["latency-64B", "latency-64KiB"],
  );
  const c64 = latency.charts[0];
  assert.ok(c64);
  assert.deepEqual(c64.labels, ["bare-net-uds", "uds", "shm-ring-spin", "uds-channel"]);
  const json = c64.datasets.find((d) => d.label === "json");
  assert.ok(json?.extra);
  assert.deepEqual(json.data, [null, 60_500, 5_100, null]);
  assert.deepEqual(json.extra.data, [null, 121_000, 10_200, null]);
  assert.equal(c64.log, false, "5.1 µs … 60.5 µs spans 12x: linear");
  assert.equal(linearFits([1, 20, null]), true);
  assert.equal(linearFits([1, 21]), false);
  const colors = codecColors(["json", "raw"]);
  assert.equal(new Set(colors.values()).size, colors.size, "distinct colours");
  assert.deepEqual(htmlCharts([], [], []), []);
});

test("the published Go tables, reproduced: this run's rows beside the published figures, no ratio", () => {
  const r = fixtureReport();
  const { ipc, spsc } = seedComparison(r);
  assert.deepEqual(ipc.rows[0], [
    "UDS",
    "18 µs",
    "124 µs",
    "1.32 M QPS",
    "uds/json/64B",
    fmtNs(60_500),
    fmtNs(121_000),
    fmtCount(120_000),
  ]);
  assert.deepEqual(
    ipc.rows.map((x) => x[4]),
    [
      "uds/json/64B",
      "uds/json/64KiB",
      "bare-net-uds/bytes/64B",
      "bare-net-uds/bytes/64KiB",
      "shm-ring-spin/json/64B",
    ],
  );
  assert.deepEqual(ipc.rows[1]?.slice(0, 4), ["", "", "", ""], "published cells once per group");
  assert.equal(ipc.rows[4]?.[0], "shared-memory ring");
  assert.equal(
    [...ipc.headers, ...spsc.headers].some((h) => /ratio|÷|\bvs\b/.test(h)),
    false,
  );
  assert.match(ipc.note, /64B and 64KiB.*--sizes 256/);
  // Mean comes from the raw runs (median of the runs' means), p99 from the summary.
  assert.deepEqual(spsc.rows, [
    [
      "tuned SPSC shm ring",
      "1.83 µs",
      "2.98 µs",
      "4.91 M msgs/s",
      "not quoted",
      "shm-ring-spin/json/64B",
      fmtNs((5_000 * 1.1 + 5_200 * 1.1) / 2),
      fmtNs(10_200),
      "—",
      "8 MiB + 4 KiB",
    ],
  ]);
  const md = renderMarkdown(r);
  const ref = md.indexOf("## Reference (other hardware, Go)");
  const seeds = md.indexOf("## The published Go tables, reproduced");
  assert.ok(ref > 0 && seeds > ref);
  assert.match(
    md.slice(seeds),
    /\| UDS \| 18 µs \| 124 µs \| 1\.32 M QPS \| uds\/json\/64B \| 60\.5 µs \|/,
  );
  assert.match(
    md.slice(seeds),
    /\| tuned SPSC shm ring \| 1\.83 µs \| .* \| shm-ring-spin\/json\/64B \| 5\.61 µs \|/,
  );
  r.summaries = [];
  const none = renderMarkdown(r);
  assert.doesNotMatch(none, /## The published Go tables|### SPSC|Not measured/);
  assert.match(none, /## Reference \(other hardware, Go\)/, "the reference figures stay");
});

/** The fixture report cut down to the case keys a `--filter` run would have measured. */
function filtered(keys: readonly string[]): ReturnType<typeof fixtureReport> {
  const r = fixtureReport();
  r.command = ["--filter", keys.join("|")];
  r.cases = r.cases.filter((c) => keys.includes(c.spec.key));
  r.summaries = r.summaries.filter((s) => keys.includes(s.spec.key));
  r.codecs = [];
  r.availability = [];
  return r;
}

const h2s = (html: string) => [...html.matchAll(/<h2 id="([a-z]+)">([^<]*)</g)].map((m) => m[2]);
const navs = (html: string) =>
  [...(/<nav>(.*?)<\/nav>/s.exec(html)?.[1] ?? "").matchAll(/href="#([a-z]+)"/g)].map((m) => m[1]);

test("a filtered run leaves out the sections and tables it measured nothing for", () => {
  const r = filtered(["latency:uds/json/64B", "latency:bare-net-uds/bytes/64B"]);
  const md = renderMarkdown(r);
  const html = renderHtml(r);
  for (const text of [md, html]) assert.doesNotMatch(text, /Not measured|not available/i);
  assert.match(md, /### UDS vs gRPC over UDS vs shared memory/);
  assert.doesNotMatch(md, /### SPSC|### Worker threads|## Codecs|## Throughput|## Charts/);
  assert.doesNotMatch(html, /<h3>SPSC|<h3>Worker threads|id="table-codecs"|id="table-throughput"/);
  assert.deepEqual(h2s(html), [
    "What to pick",
    "Charts",
    "Tables",
    "The published Go tables, reproduced",
    "Machine and method",
  ]);
  assert.deepEqual(navs(html), ["summary", "charts", "tables", "published", "machine"]);

  // Channel streams only: nothing to pick, no published table: those sections go, with their links.
  const channel = renderHtml(
    filtered(["stream:uds-channel/frame/64B", "stream:bare-net-uds/bytes/64B"]),
  );
  assert.deepEqual(h2s(channel), [
    "Charts",
    "Tables",
    "Reference (other hardware, Go)",
    "Machine and method",
  ]);
  assert.deepEqual(navs(channel), ["charts", "tables", "published", "machine"]);
  assert.doesNotMatch(channel, /Not measured|The published Go tables, reproduced/);
});

test("payloads around the published 256 B: the exact size when measured, else its neighbours", () => {
  const rows = fixtureReport().summaries;
  assert.deepEqual(payloadsAround(rows, 256), ["64B", "64KiB"]);
  assert.deepEqual(payloadsAround(rows, 64), ["64B"]);
  assert.deepEqual(payloadsAround(rows, 1 << 20), ["64KiB"]);
});

test("chromium lookup: $NEARWIRE_CHROMIUM, else PATH; console lines of its log", () => {
  const dir = mkdtempSync(join(tmpdir(), "nwb-bin-"));
  try {
    const fake = join(dir, "chromium");
    writeFileSync(fake, "#!/bin/sh\n", { mode: 0o755 });
    assert.equal(findChromium({ PATH: `/nonexistent${delimiter}${dir}` }), fake);
    assert.equal(findChromium({ PATH: "/nonexistent" }), undefined);
    assert.equal(findChromium({ NEARWIRE_CHROMIUM: fake, PATH: "" }), fake);
    assert.equal(findChromium({ NEARWIRE_CHROMIUM: join(dir, "none"), PATH: dir }), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const log =
    '[1:1:INFO:CONSOLE:1] "boom", source: file:///r.html (1)\n[1:1:ERROR:dbus/bus.cc:405] x';
  assert.deepEqual(consoleLines(log), ['[1:1:INFO:CONSOLE:1] "boom", source: file:///r.html (1)']);
});
