import assert from "node:assert/strict";
import { test } from "node:test";
import { parseBenchArgs } from "../src/cli/args.js";
import { renderMarkdown } from "../src/report/markdown-report.js";
import { summarise } from "../src/report/summary.js";
import { latencyTable, spreadTable } from "../src/report/tables.js";
import {
  fixtureCases,
  fixtureCores,
  fixtureInput,
  fixtureReport,
} from "./support/fixture-report.js";
import { found } from "./support/found.js";

test("ratioRange pairs run i with the compared row's run i; stable rows are not flagged", () => {
  const s = summarise(fixtureCases(), fixtureInput, fixtureCores);
  const uds = s.find((x) => x.spec.key === "latency:uds/json/64B");
  assert.ok(uds);
  assert.deepEqual(uds.ratioRange, [61_000 / 52_000, 60_000 / 50_000]);
  assert.equal(uds.unstable, false);
  // One run only: no range, no flag.
  const one = s.find(
    (x) =>
      x.spec.key === "latency:uds/json/65536B" || x.spec.key.startsWith("latency:uds/json/64K"),
  );
  assert.ok(one);
  assert.equal(one.ratioRange, undefined);
  assert.equal(one.unstable, undefined);
});

test("a ratio range crossing 1.0, or runs spread > 2×, make a row unstable", () => {
  const cases = fixtureCases();
  const uds = cases.find((x) => x.spec.key === "latency:uds/json/64B");
  const l0 = uds?.runs[0]?.latency;
  assert.ok(l0);
  l0.p50Ns = 45_000; // 0.90× in run 0, 61/52 = 1.17× in run 1
  const spin = cases.find((x) => x.spec.key === "latency:shm-ring-spin/json/64B");
  const l1 = spin?.runs[1]?.latency;
  assert.ok(l1);
  l1.p50Ns = 15_000; // 5 µs and 15 µs: 3× apart, both faster than uds
  const s = summarise(cases, fixtureInput, fixtureCores);
  const u = s.find((x) => x.spec.key === "latency:uds/json/64B");
  assert.ok(u?.ratioRange);
  assert.equal(u.unstable, true);
  assert.ok(u.ratioRange[0] < 1 && u.ratioRange[1] > 1);
  const get = (key: string) =>
    found(
      s.find((x) => x.spec.key === key),
      key,
    );
  assert.equal(get("latency:shm-ring-spin/json/64B").unstable, true);
  assert.equal(get("latency:bare-net-uds/bytes/64B").unstable, false);
  const lat = latencyTable(s);
  const row = lat.rows.find((r) => r[0] === "uds/json/64B");
  assert.ok(row);
  const col = (name: string) => row[lat.headers.indexOf(name)] ?? "";
  assert.match(col("p50 vs"), /^~\d/);
  assert.equal(col("flags"), "⚠ unstable");
  const spreadRow = spreadTable(s).rows.find((r) => r[0] === "uds/json/64B");
  assert.ok(spreadRow);
  assert.equal(spreadRow.at(-1), "~ unstable");
  assert.equal(spreadRow.at(-2), "0.90× – 1.17×");
  const report = { ...fixtureReport(), cases, summaries: s };
  assert.match(renderMarkdown(report), /~ unstable/);
  assert.equal(
    JSON.parse(JSON.stringify(report)).summaries.find(
      (x: { spec: { key: string } }) => x.spec.key === "latency:uds/json/64B",
    ).unstable,
    true,
  );
});

test("'What ran' lists the transports and codecs of cases that ran", () => {
  const report = fixtureReport();
  report.found = {
    transports: [...report.found.transports, { id: "tcp", layer: "rpc", baseline: "bare-net-tcp" }],
    codecs: [...report.found.codecs, "protobuf"],
  };
  const md = renderMarkdown(report);
  const line = md.split("\n").find((l) => l.startsWith("Transports:")) ?? "";
  assert.match(line, /`bare-net-uds`, `uds`, `shm-ring-spin`, `uds-channel`\./);
  assert.doesNotMatch(line, /tcp|protobuf|bare-grpc/);
  assert.match(line, /Codecs: `bytes`, `json`, `frame`, `raw`\./);
});

test("--json - / --markdown - are accepted alone, not together", () => {
  assert.equal(parseBenchArgs(["--json", "-"]).json, "-");
  assert.equal(parseBenchArgs(["--markdown", "-"]).markdown, "-");
  assert.throws(() => parseBenchArgs(["--json", "-", "--markdown", "-"]), /together/);
  assert.throws(() => parseBenchArgs(["--html", "-"]), /stdout/);
});
