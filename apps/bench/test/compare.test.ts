import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { compareMarkdown, compareReports, compareText } from "../src/cli/compare.js";
import { fixtureReport } from "./support/fixture-report.js";
import { found } from "./support/found.js";

/** The verdict of one row of a comparison; fails when the row is not there. */
const verdict = (c: { rows: { key: string; verdict: string }[] }, key: string) =>
  found(
    c.rows.find((r) => r.key === key),
    key,
  ).verdict;

const cli = fileURLToPath(new URL("../src/cli.ts", import.meta.url));

test("compare: a scaled-slower report is slower where it changed, within noise elsewhere", () => {
  const c = compareReports(fixtureReport(1), fixtureReport(2));
  const lat = c.rows.find((r) => r.key === "latency:uds/json/64B");
  assert.ok(lat?.change !== undefined && lat.changeRange);
  assert.equal(lat.verdict, "slower");
  assert.ok(Math.abs(lat.change - 2) < 1e-9);
  assert.deepEqual(
    lat.changeRange.map((v) => +v.toFixed(3)),
    [+(120 / 61).toFixed(3), +(122 / 60).toFixed(3)],
  );
  // One run on each side: half the msgs/s, yet no verdict.
  assert.equal(verdict(c, "throughput:uds/json/64B"), "needs --repeat");
  assert.equal(verdict(c, "latency:bare-net-uds/bytes/64B"), "within noise");
  assert.equal(verdict(c, "latency:uds/raw/64B"), "failed");
  assert.equal(c.sameMachine, true);
  const faster = compareReports(fixtureReport(2), fixtureReport(1));
  assert.equal(verdict(faster, "latency:uds/json/64B"), "faster");
  assert.equal(verdict(faster, "throughput:uds/json/64B"), "needs --repeat");
});

test("compare: two single runs (1 / 1) call nothing faster or slower, and say to --repeat", () => {
  const single = (scale: number) => {
    const r = fixtureReport(scale);
    for (const c of r.cases) c.runs = c.runs.slice(0, 1);
    return r;
  };
  const c = compareReports(single(1), single(2));
  const lat = c.rows.find((r) => r.key === "latency:uds/json/64B");
  assert.ok(lat?.change !== undefined);
  assert.ok(Math.abs(lat.change - 2) < 1e-9, "the change is still shown");
  assert.equal(lat.verdict, "needs --repeat");
  assert.deepEqual(
    c.rows.filter((r) => r.verdict === "faster" || r.verdict === "slower"),
    [],
  );
  assert.equal(verdict(c, "latency:uds/raw/64B"), "failed");
  const text = compareText(c, "a.json", "b.json");
  assert.match(text, /latency:uds\/json\/64B .* 1 \/ 1 +needs --repeat/);
  assert.match(text, /fewer than 2 runs on a side: no faster\/slower verdict.*--repeat 3/);
  assert.doesNotMatch(text, /\d+ (faster|slower)/);
  assert.match(compareMarkdown(c, "a.json", "b.json"), /> .*--repeat 3/);
  // One side repeated is not enough either.
  const mixed = compareReports(fixtureReport(1), single(2));
  assert.equal(verdict(mixed, "latency:uds/json/64B"), "needs --repeat");
});

test("compare: overlapping runs or a change ≤ 10 % stay within noise", () => {
  const c = compareReports(fixtureReport(1), fixtureReport(1.05));
  assert.equal(verdict(c, "latency:uds/json/64B"), "within noise");
  const base = fixtureReport(1);
  const next = fixtureReport(1);
  const runs = found(
    next.cases.find((x) => x.spec.key === "latency:uds/json/64B"),
    "latency:uds/json/64B",
  ).runs;
  // Medians 1.3× apart but the ranges overlap: one run of the new side is as fast as the base.
  assert.ok(runs[0]?.latency && runs[1]?.latency);
  runs[0].latency.p50Ns = 60_500;
  runs[1].latency.p50Ns = 100_000;
  assert.equal(verdict(compareReports(base, next), "latency:uds/json/64B"), "within noise");
});

test("compare: added and removed rows, different machines named", () => {
  const base = fixtureReport(1);
  const next = fixtureReport(1);
  next.cases = next.cases.filter((x) => x.spec.key !== "stream:uds-channel/frame/64B");
  base.cases = base.cases.filter(
    (x) =>
      x.spec.key !== "latency:uds/json/65536B" && !x.spec.key.startsWith("latency:uds/json/64K"),
  );
  next.machine = { ...next.machine, cpuModel: "Other CPU" };
  const c = compareReports(base, next);
  assert.equal(verdict(c, "stream:uds-channel/frame/64B"), "removed");
  assert.equal(verdict(c, "latency:uds/json/64KiB"), "added");
  assert.equal(c.sameMachine, false);
  const text = compareText(c, "a.json", "b.json");
  assert.match(text, /warning: different machines \("Test CPU" vs "Other CPU"\)/);
  assert.match(text, /node v20\.0\.0, 2026-01-01T00:00:00\.000Z/);
  const md = compareMarkdown(c, "a.json", "b.json");
  assert.match(md, /\*\*Warning:\*\* different machines/);
  assert.match(md, /\| stream:uds-channel\/frame\/64B \| msgs\/s \|.*\| removed \|/);
});

test("compare CLI: terminal table, --markdown - to stdout with the table on stderr", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "nearwire-compare-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const a = join(dir, "base.json");
  const b = join(dir, "new.json");
  writeFileSync(a, JSON.stringify(fixtureReport(1)));
  writeFileSync(b, JSON.stringify(fixtureReport(2)));
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", cli, "compare", ...args], { encoding: "utf8" });
  const plain = run(a, b);
  assert.equal(plain.status, 0, plain.stderr);
  assert.match(plain.stdout, /latency:uds\/json\/64B\s+p50\s+60\.5 µs\s+121 µs\s+2\.00×.*slower/);
  const md = run(a, b, "--markdown", "-");
  assert.equal(md.status, 0, md.stderr);
  assert.match(md.stdout, /^## nearwire-bench: comparison/);
  assert.match(md.stderr, /within noise/);
  const file = join(dir, "cmp.md");
  assert.equal(run(a, b, "--markdown", file).status, 0);
  assert.equal(run(a).status, 2);
  assert.equal(run(a, join(dir, "missing.json")).status, 2);
});
