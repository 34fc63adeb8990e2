import assert from "node:assert/strict";
import { test } from "node:test";
import { envSuffix, runtimeEnv } from "../src/measure/machine.js";
import { renderCharts } from "../src/report/charts.js";
import { fmtCount, fmtNs } from "../src/report/format.js";
import { renderMarkdown } from "../src/report/markdown-report.js";
import { fixtureReport } from "./support/fixture-report.js";

test("summaries: medians over runs, ratios to the compared row, errors kept", () => {
  const r = fixtureReport();
  const uds = r.summaries.find((s) => s.spec.key === "latency:uds/json/64B");
  assert.ok(uds?.ratio);
  assert.equal(uds.p50Ns, 60_500);
  assert.equal(uds.runs, 2);
  assert.deepEqual(uds.p50Spread, [60_000, 61_000]);
  assert.equal(uds.ratio.to, "bare-net-uds/bytes/64B");
  assert.ok(Math.abs(uds.ratio.value - 60_500 / 51_000) < 1e-9);
  const shm = r.summaries.find((s) => s.spec.key === "latency:shm-ring-spin/json/64B");
  assert.ok(shm?.ratio);
  assert.equal(shm.ratio.to, "uds/json/64B");
  const thr = r.summaries.find((s) => s.spec.key === "throughput:uds/json/64B");
  assert.ok(thr?.ratio);
  assert.ok(Math.abs(thr.ratio.value - 120_000 / 170_000) < 1e-9);
  const failed = r.summaries.find((s) => s.spec.key === "latency:uds/raw/64B");
  assert.ok(failed);
  assert.equal(failed.runs, 0);
  assert.match(failed.error ?? "", /ready/);
});

test("Markdown report: machine, method, tables with ratios, spread, failures, labelled references", () => {
  const md = renderMarkdown(fixtureReport(), ["latency.svg"]);
  assert.match(md, /^# nearwire-bench report/);
  assert.match(md, /\| CPU \| Test CPU \|/);
  assert.match(md, /## How it was measured/);
  assert.match(md, /## Latency \(round trip, one call in flight\)/);
  assert.match(md, /\| uds\/json\/64B \| 64 B \| 60\.5 µs \|/);
  assert.match(md, /1\.19× bare-net-uds\/bytes\/64B/);
  assert.match(md, /## Spread over repeated runs/);
  assert.match(md, /latency:uds\/raw\/64B/);
  assert.match(md, /@nearwire\/grpc-uds \| absent/);
  assert.match(md, /!\[latency\.svg\]\(latency\.svg\)/);
  // Reference figures live in their own section, after every measured table.
  const ref = md.indexOf("## Reference (other hardware, Go)");
  assert.ok(ref > md.indexOf("## One-way streaming"));
  assert.match(md.slice(ref), /gRPC over UDS \| 47 µs/);
  assert.equal(md.slice(0, ref).includes("47 µs"), false);
});

test("the environment a run had: the runtime's variables that were set, in the machine table", () => {
  const set = runtimeEnv({
    NODE_OPTIONS: "--max-old-space-size=512",
    UV_USE_IO_URING: "1",
    UV_THREADPOOL_SIZE: "",
    PATH: "/usr/bin",
  });
  // In RUNTIME_ENV_VARS' order; an empty value is unset; other variables are not named.
  assert.deepEqual(set, ["UV_USE_IO_URING=1", "NODE_OPTIONS=--max-old-space-size=512"]);
  assert.deepEqual(runtimeEnv({ PATH: "/usr/bin" }), []);
  assert.equal(
    envSuffix({ env: set }),
    "  env UV_USE_IO_URING=1 NODE_OPTIONS=--max-old-space-size=512",
  );
  assert.equal(envSuffix({}), "");
  const r = fixtureReport();
  assert.doesNotMatch(renderMarkdown(r, []), /\| environment \|/);
  r.machine.env = ["UV_USE_IO_URING=1"];
  assert.match(renderMarkdown(r, []), /\| environment \| UV_USE_IO_URING=1 \|/);
});

test("SVG charts: well-formed, labelled, legend, log axis, no NaN", () => {
  const charts = renderCharts(fixtureReport().codecs, fixtureReport().summaries);
  assert.deepEqual(Object.keys(charts).sort(), [
    "codecs.svg",
    "cpu.svg",
    "latency.svg",
    "throughput.svg",
  ]);
  for (const [name, svg] of Object.entries(charts)) {
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/, name);
    assert.match(svg, /<\/svg>\n$/, name);
    assert.equal(svg.includes("NaN"), false, name);
    assert.equal(svg.includes("undefined"), false, name);
    const opened = (svg.match(/<text\b/g) ?? []).length;
    assert.equal(opened, (svg.match(/<\/text>/g) ?? []).length, `${name}: text tags balance`);
  }
  const lat = charts["latency.svg"] ?? "";
  assert.match(lat, /Round-trip latency by transport and payload size/);
  assert.match(lat, /round trip \(log scale\)/);
  assert.match(lat, />64B</);
  assert.match(lat, />64KiB</);
  assert.match(lat, />p99</);
  assert.match(lat, />bare-net-uds\/bytes</);
  assert.match(lat, />10\.0 µs</);
  assert.match(charts["throughput.svg"] ?? "", />json</);
  assert.match(charts["cpu.svg"] ?? "", />server</);
});

test("charts and tables survive an empty result", () => {
  assert.deepEqual(renderCharts([], []), {});
  const r = fixtureReport();
  r.summaries = [];
  r.codecs = [];
  assert.match(renderMarkdown(r), /## Reference/);
});

test("number formats", () => {
  assert.equal(fmtNs(850), "850 ns");
  assert.equal(fmtNs(53_210), "53.2 µs");
  assert.equal(fmtNs(999_900), "1.00 ms");
  assert.equal(fmtNs(undefined), "—");
  assert.equal(fmtCount(50), "50");
  assert.equal(fmtCount(1_234_567), "1.23 M");
});
