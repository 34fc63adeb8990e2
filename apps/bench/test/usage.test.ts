import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { USAGE } from "../src/cli/args.js";
import type { BenchReport } from "../src/report/summary.js";

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");

test("--help names every subcommand the entry dispatches, transfer included", () => {
  const subcommands = [...read("../src/cli.ts").matchAll(/argv\[0\] === "([a-z-]+)"/g)].map(
    (m) => m[1] as string,
  );
  assert.deepEqual(subcommands, ["compare", "transfer"]);
  for (const name of subcommands)
    assert.match(USAGE, new RegExp(`^nearwire-bench ${name} `, "m"), name);
  assert.match(USAGE, /^nearwire-bench \[options\] /m);
});

test("one run-time figure everywhere: the committed default run's, from its report.json", () => {
  const report = JSON.parse(read("../results/report.json")) as BenchReport;
  assert.equal(report.settings.profile, "default");
  const minutes = Math.round(
    (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 60_000,
  );
  const places: [string, string][] = [
    ["--help", USAGE],
    ["README.md", read("../../../README.md")],
    ["apps/bench/README.md", read("../README.md")],
  ];
  for (const [where, text] of places) {
    const figures = [...text.matchAll(/[≈~](\d+)[ -]min/g)].map((m) => Number(m[1]));
    assert.ok(figures.length > 0, `${where} states the run time`);
    assert.deepEqual(
      [...new Set(figures)],
      [minutes],
      `${where}: the default run takes ≈${minutes} min`,
    );
  }
});
