import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { BenchReport } from "../src/report/summary.js";

// The A/B gate end to end, from the built CLI (both sides then run the same compiled code):
// this tree against itself passes; with a busy-wait injected before every socket write of the
// current side, the same row regresses and the run exits 1.
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "nwb-ab-"));
after(() => rmSync(work, { recursive: true, force: true }));

function gate(extra: string[]): { code: number | null; out: string; report: BenchReport } {
  const json = join(work, `ab-${extra.length}.json`);
  const r = spawnSync(
    process.execPath,
    [
      cli,
      "--ci",
      "--base-dir",
      repoRoot,
      "--filter",
      "^latency:uds-channel/frame/64B$",
      "--duration",
      "150ms",
      "--warmup",
      "150ms",
      "--json",
      json,
      ...extra,
    ],
    { encoding: "utf8", timeout: 120_000 },
  );
  return {
    code: r.status,
    out: r.stdout,
    report: JSON.parse(readFileSync(json, "utf8")) as BenchReport,
  };
}

test("A/B gate: an unchanged tree passes", () => {
  const { code, out, report } = gate([]);
  assert.equal(code, 0, out);
  assert.ok(report.ab, "the A/B gate ran");
  const row = report.ab.rows.find((r) => r.key === "latency:uds-channel/frame/64B");
  assert.ok(row, "the row was gated");
  assert.equal(row.pairs.length, 3);
  assert.notEqual(row.status, "REGRESSED");
});

test("A/B gate: an injected slowdown fails the run", () => {
  const { code, out, report } = gate(["--self-test-slowdown", "300"]);
  assert.equal(code, 1, out);
  assert.ok(report.ab, "the A/B gate ran");
  const row = report.ab.rows.find((r) => r.key === "latency:uds-channel/frame/64B");
  assert.ok(row);
  assert.equal(row.status, "REGRESSED");
  assert.ok(row.ratio > 2, `ratio ${row.ratio}`);
});
