import assert from "node:assert/strict";
import { test } from "node:test";
import {
  compare,
  comparisonTable,
  computeRatios,
  makeBaseline,
  serializeBaseline,
} from "../src/ci/ci.js";
import { fixtureReport } from "./support/fixture-report.js";
import { found } from "./support/found.js";

const machine = { cpuModel: "Test CPU", cores: 2, node: "v20.0.0" };

function ratiosAt(scale: number): Record<string, number> {
  const r = fixtureReport(scale);
  return computeRatios(r.summaries, r.codecs);
}

test("ratios come from one run: nearwire ÷ baseline, codecs ÷ json", () => {
  const r = ratiosAt(1);
  assert.ok(Math.abs((r["uds/json/64B p50 ÷ bare-net-uds p50"] ?? 0) - 60_500 / 51_000) < 1e-9);
  assert.ok(
    Math.abs((r["shm-ring-spin/json/64B p50 ÷ uds/json/64B p50"] ?? 0) - 5_100 / 60_500) < 1e-9,
  );
  assert.equal(r["raw tick encode ops/s ÷ json"], 4);
  assert.equal(r["raw tick decode ops/s ÷ json"], 10);
  assert.equal(r["tcp/json/64B p50 ÷ bare-net-tcp p50"], undefined, "not measured, not invented");
});

test("baseline limits sit beyond the observed spread", () => {
  const runs = [0.97, 1, 1.03, 0.99, 1.02].map(ratiosAt);
  const b = makeBaseline(runs, machine, 0.25, "2026-01-01T00:00:00Z");
  assert.equal(b.runs, 5);
  const lat = b.ratios["uds/json/64B p50 ÷ bare-net-uds p50"];
  assert.ok(lat);
  assert.equal(lat.direction, "lower");
  assert.ok(lat.min <= lat.median && lat.median <= lat.max);
  assert.ok(lat.limit >= lat.max * 1.25 - 1e-12);
  assert.ok(lat.limit >= lat.median * 1.5 - 1e-12);
  const thr = b.ratios["uds/json/64B ×64 msgs/s ÷ bare-net-uds"];
  assert.ok(thr);
  assert.equal(thr.direction, "higher");
  assert.ok(thr.limit <= thr.min / 1.25 + 1e-12);
});

test("noise within the recorded spread passes", () => {
  const b = makeBaseline([0.97, 1, 1.03, 0.99, 1.02].map(ratiosAt), machine);
  for (const scale of [0.97, 1.03, 1.1]) {
    const { rows, failed } = compare(ratiosAt(scale), b);
    assert.equal(failed, false, `scale ${scale}`);
    assert.ok(rows.every((r) => r.status === "ok"));
  }
});

test("a regression past the limit fails with a readable table", () => {
  const b = makeBaseline([0.97, 1, 1.03, 0.99, 1.02].map(ratiosAt), machine);
  const { rows, failed } = compare(ratiosAt(2), b);
  assert.equal(failed, true);
  const bad = rows.filter((r) => r.status === "regressed").map((r) => r.name);
  assert.ok(bad.includes("uds/json/64B p50 ÷ bare-net-uds p50"));
  assert.ok(bad.includes("uds/json/64B ×64 msgs/s ÷ bare-net-uds"));
  assert.equal(bad.includes("raw tick encode ops/s ÷ json"), false, "unchanged ratios stay ok");
  const table = comparisonTable(rows);
  assert.match(table, /uds\/json\/64B p50 ÷ bare-net-uds p50 .*REGRESSED/);
  assert.match(table, /≤ /);
});

test("a ratio missing from the run fails; a new one is reported and passes", () => {
  const b = makeBaseline([ratiosAt(1)], machine);
  const current = ratiosAt(1);
  delete current["raw tick decode ops/s ÷ json"];
  const missing = compare(current, b);
  assert.equal(missing.failed, true);
  const name = "raw tick decode ops/s ÷ json";
  assert.equal(
    found(
      missing.rows.find((r) => r.name === name),
      name,
    ).status,
    "missing",
  );

  const older = makeBaseline([ratiosAt(1)], machine);
  delete older.ratios["raw tick decode ops/s ÷ json"];
  const added = compare(ratiosAt(1), older);
  assert.equal(added.failed, false);
  assert.equal(
    found(
      added.rows.find((r) => r.name === name),
      name,
    ).status,
    "new",
  );
});

test("a ratio that swung widely on an unchanged tree gets proportionally more room", () => {
  const swings = [1, 3, 1.5, 2, 1.2].map((x) => ({
    "uds-channel 64B stream msgs/s ÷ bare-net-uds": 4 * x,
  }));
  const b = makeBaseline(swings, machine, 0.25);
  const r = b.ratios["uds-channel 64B stream msgs/s ÷ bare-net-uds"];
  assert.ok(r);
  assert.equal(r.min, 4);
  assert.equal(r.max, 12);
  assert.ok(Math.abs(r.limit - 4 / 3) < 1e-9, `limit ${r.limit}`);
  assert.equal(compare({ "uds-channel 64B stream msgs/s ÷ bare-net-uds": 2 }, b).failed, false);
  assert.equal(compare({ "uds-channel 64B stream msgs/s ÷ bare-net-uds": 1 }, b).failed, true);
});

test("the baseline file keeps 4 significant digits and one-line sample arrays", () => {
  const b = makeBaseline([0.97, 1, 1.03].map(ratiosAt), machine, 0.25, "2026-01-01T00:00:00Z");
  const text = serializeBaseline(b);
  assert.match(text, /"samples": \[[\d., ]+\]\n/);
  const back = JSON.parse(text) as typeof b;
  const name = "uds/json/64B p50 ÷ bare-net-uds p50";
  const orig = b.ratios[name];
  const read = back.ratios[name];
  assert.ok(orig && read);
  assert.ok(Math.abs(read.limit - orig.limit) / orig.limit < 1e-3);
  assert.equal(read.samples.length, 3);
  assert.equal(compare(ratiosAt(1), back).failed, false);
});
