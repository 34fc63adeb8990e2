import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { compareMarkdown, compareReports, compareText } from "../src/cli/compare.js";
import { fixtureReport } from "./fixture.js";

const cli = fileURLToPath(new URL("../src/cli.ts", import.meta.url));

test("compare: a scaled-slower report is slower where it changed, within noise elsewhere", () => {
  const c = compareReports(fixtureReport(1), fixtureReport(2));
  const by = new Map(c.rows.map((r) => [r.key, r]));
  const lat = by.get("latency:uds/json/64B");
  assert.ok(lat);
  assert.equal(lat?.verdict, "slower");
  assert.ok(Math.abs((lat?.change ?? 0) - 2) < 1e-9);
  assert.deepEqual(
    lat?.changeRange?.map((v) => +v.toFixed(3)),
    [+(120 / 61).toFixed(3), +(122 / 60).toFixed(3)],
  );
  assert.equal(by.get("throughput:uds/json/64B")?.verdict, "slower");
  assert.equal(by.get("latency:bare-net-uds/bytes/64B")?.verdict, "within noise");
  assert.equal(by.get("latency:uds/raw/64B")?.verdict, "failed");
  assert.equal(c.sameMachine, true);
  const faster = compareReports(fixtureReport(2), fixtureReport(1));
  assert.equal(faster.rows.find((r) => r.key === "latency:uds/json/64B")?.verdict, "faster");
  assert.equal(faster.rows.find((r) => r.key === "throughput:uds/json/64B")?.verdict, "faster");
});

test("compare: overlapping runs or a change ≤ 10 % stay within noise", () => {
  const c = compareReports(fixtureReport(1), fixtureReport(1.05));
  assert.equal(c.rows.find((r) => r.key === "latency:uds/json/64B")?.verdict, "within noise");
  const base = fixtureReport(1);
  const next = fixtureReport(1);
  const runs = next.cases.find((x) => x.spec.key === "latency:uds/json/64B")?.runs ?? [];
  // Medians 1.3× apart but the ranges overlap: one run of the new side is as fast as the base.
  if (runs[0]?.latency) runs[0].latency.p50Ns = 60_500;
  if (runs[1]?.latency) runs[1].latency.p50Ns = 100_000;
  assert.equal(
    compareReports(base, next).rows.find((r) => r.key === "latency:uds/json/64B")?.verdict,
    "within noise",
  );
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
  assert.equal(c.rows.find((r) => r.key === "stream:uds-channel/frame/64B")?.verdict, "removed");
  assert.equal(c.rows.find((r) => r.key.startsWith("latency:uds/json/64K"))?.verdict, "added");
  assert.equal(c.sameMachine, false);
  const text = compareText(c, "a.json", "b.json");
  assert.match(text, /warning: different machines \("Test CPU" vs "Other CPU"\)/);
  assert.match(text, /node v20\.0\.0, 2026-01-01T00:00:00\.000Z/);
  const md = compareMarkdown(c, "a.json", "b.json");
  assert.match(md, /\*\*Warning:\*\* different machines/);
  assert.match(md, /\| stream:uds-channel\/frame\/64B \| msgs\/s \|.*\| removed \|/);
});

test("compare CLI: terminal table, --markdown - to stdout with the table on stderr", () => {
  const dir = mkdtempSync(join(tmpdir(), "nearwire-compare-"));
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
