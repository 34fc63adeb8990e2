import assert from "node:assert/strict";
import { test } from "node:test";
import { machineBusyUs, otherCpuCores } from "../src/measure/machine-cpu.js";
import { textTable } from "../src/report/format.js";
import { renderHtml } from "../src/report/html-report.js";
import { renderMarkdown } from "../src/report/markdown-report.js";
import { recommend } from "../src/report/recommendations.js";
import { type BenchReport, summarise, withRunFlags } from "../src/report/summary.js";
import { flowTable, latencyTable } from "../src/report/tables.js";
import { DOUBT_LEGEND, doubtLine, doubts } from "../src/report/trust.js";
import {
  fixtureCases,
  fixtureCores,
  fixtureInput,
  fixtureReport,
} from "./support/fixture-report.js";
import { found } from "./support/found.js";

const SHM = "latency:shm-ring-spin/json/64B";

/** The fixture report, with `edit` applied to its runs before they are summarised. */
function reportWith(edit: (cases: ReturnType<typeof fixtureCases>) => void): BenchReport {
  const cases = fixtureCases();
  for (const c of cases) for (const r of c.runs) r.warmup = { ns: 1e9, calls: 5000, steady: true };
  edit(cases);
  return { ...fixtureReport(), cases, summaries: summarise(cases, fixtureInput, fixtureCores) };
}

const runsOf = (cases: ReturnType<typeof fixtureCases>, key: string) =>
  found(
    cases.find((c) => c.spec.key === key),
    key,
  ).runs;

const summaryOf = (r: BenchReport, key: string) =>
  found(
    r.summaries.find((s) => s.spec.key === key),
    key,
  );

test("a run whose warm-up did not settle makes its row unsteady; a steady one does not", () => {
  const r = reportWith((cases) => {
    const runs = runsOf(cases, SHM);
    assert.ok(runs[1]?.warmup);
    runs[1].warmup.steady = false;
  });
  assert.equal(summaryOf(r, SHM).unsteady, true);
  assert.deepEqual(doubts(summaryOf(r, SHM)), ["unsteady"]);
  assert.equal(summaryOf(r, "latency:uds/json/64B").unsteady, false);
  // Runs that did not record their warm-up (an older report) are not judged.
  assert.equal(fixtureReport().summaries[0]?.unsteady, undefined);
});

test("without otherCpuCores, a load average above the core count makes its row loaded", () => {
  const r = reportWith((cases) => {
    for (const run of runsOf(cases, SHM)) run.loadAverage1m = fixtureCores + 0.5;
    for (const run of runsOf(cases, "latency:uds/json/64B")) run.loadAverage1m = fixtureCores;
  });
  const shm = summaryOf(r, SHM);
  assert.equal(shm.loaded, true);
  assert.equal(shm.loadAverage1m, fixtureCores + 0.5);
  assert.deepEqual(doubts(shm), ["loaded"]);
  assert.equal(summaryOf(r, "latency:uds/json/64B").loaded, false, "at the core count: not loaded");
});

test("a run during which other processes used more than a core makes its row loaded", () => {
  const r = reportWith((cases) => {
    for (const run of runsOf(cases, SHM)) run.otherCpuCores = 0.1;
    const runs = runsOf(cases, SHM);
    assert.ok(runs[1]);
    runs[1].otherCpuCores = 1.7; // a busy loop beside the case, while the load average lags
    for (const run of runsOf(cases, "latency:uds/json/64B")) {
      run.otherCpuCores = 1; // a core's worth: not yet loaded
      run.loadAverage1m = fixtureCores + 1; // the lagging load average is not asked when it is
    }
  });
  const shm = summaryOf(r, SHM);
  assert.equal(shm.loaded, true);
  assert.equal(shm.otherCpuCores, 1.7);
  assert.deepEqual(doubts(shm), ["loaded"]);
  assert.equal(summaryOf(r, "latency:uds/json/64B").loaded, false, "one core: not loaded");
});

test("otherCpuCores: the machine's busy time in a window minus the case's own, in cores", () => {
  // 1.5 s of busy CPU over a 1 s window, 0.9 s of it the case's: 0.6 cores of others.
  assert.equal(otherCpuCores(10_000_000, 11_500_000, 900_000, 1e9), 0.6);
  assert.equal(otherCpuCores(0, 100, 500, 1e9), 0, "never below 0 (tick granularity)");
  assert.equal(otherCpuCores(undefined, 5, 0, 1e9), undefined, "off Linux: not known");
  const now = machineBusyUs();
  if (process.platform === "linux") assert.ok(now !== undefined && now > 0);
});

test("one unsteady row: marked in the terminal table, Markdown and HTML, left out of what to pick", () => {
  const clean = reportWith(() => {});
  assert.equal(
    found(recommend(clean.summaries, clean.codecs)[0], "latency pick").pick,
    "shm-ring-spin/json/64B",
  );
  assert.equal(doubtLine(clean.summaries), undefined);
  assert.equal(latencyTable(clean.summaries).headers.includes("flags"), false, "no empty column");

  const r = reportWith((cases) => {
    const runs = runsOf(cases, SHM);
    assert.ok(runs[0]?.warmup);
    runs[0].warmup.steady = false;
  });
  const lat = latencyTable(r.summaries);
  assert.equal(lat.headers.at(-1), "flags");
  assert.ok(lat.note.includes(DOUBT_LEGEND));
  const cell = (id: string) =>
    found(
      lat.rows.find((row) => row[0] === id),
      id,
    ).at(-1);
  assert.equal(cell("shm-ring-spin/json/64B"), "⚠ unsteady");
  assert.equal(cell("uds/json/64B"), "");
  assert.ok(lat.values);
  assert.equal(lat.rows.length, lat.values.length);
  assert.match(textTable(lat.headers, lat.rows), /shm-ring-spin\/json\/64B .* ⚠ unsteady\n/);
  assert.equal(flowTable(r.summaries, "throughput").headers.includes("flags"), false);

  assert.equal(doubtLine(r.summaries), "⚠ 1 of 10 rows are not results: 1 unsteady.");
  const md = renderMarkdown(r);
  assert.match(md, /\| shm-ring-spin\/json\/64B \|.*\| ⚠ unsteady \|/);
  assert.match(md, /⚠ 1 of 10 rows are not results: 1 unsteady\./);
  assert.ok(md.includes("unsteady = a run's warm-up reached its cap"), "the legend");
  const html = renderHtml(r);
  assert.match(html, /<td class="doubt">⚠ unsteady<\/td>/);
  assert.match(html, /<p class="doubt">⚠ 1 of 10 rows are not results/);

  const picks = recommend(r.summaries, r.codecs);
  assert.equal(
    picks.some((p) => p.pick === "shm-ring-spin/json/64B" || p.detail.includes("shm-ring-spin")),
    false,
    "neither a pick nor a runner-up",
  );
  assert.equal(found(picks[0], "latency pick").goal, "Latency (small messages)");
  assert.equal(found(picks[0], "latency pick").pick, "uds/json/64B");
  const summary = html.slice(html.indexOf('<h2 id="summary">'), html.indexOf('<h2 id="charts">'));
  assert.equal(summary.includes('<div class="pick">shm-ring-spin'), false);
});

test("an unstable row (runs disagree) is flagged and left out of what to pick too", () => {
  const r = reportWith((cases) => {
    const runs = runsOf(cases, SHM);
    assert.ok(runs[1]?.latency);
    runs[1].latency.p50Ns = 15_000; // 5 µs and 15 µs: 3× apart
  });
  assert.deepEqual(doubts(summaryOf(r, SHM)), ["unstable"]);
  assert.equal(
    recommend(r.summaries, r.codecs).some((p) => p.pick === "shm-ring-spin/json/64B"),
    false,
  );
});

test("re-rendering derives the flags from the runs of a report written without them", () => {
  const r = reportWith((cases) => {
    const runs = runsOf(cases, SHM);
    assert.ok(runs[0]?.warmup);
    runs[0].warmup.steady = false;
  });
  const old: BenchReport = {
    ...r,
    summaries: r.summaries.map(({ unsteady: _, ...s }) => s),
  };
  assert.equal(summaryOf(old, SHM).unsteady, undefined);
  assert.equal(summaryOf(withRunFlags(old), SHM).unsteady, true);
});
