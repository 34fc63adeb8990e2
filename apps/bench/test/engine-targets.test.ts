import assert from "node:assert/strict";
import { test } from "node:test";
import type { CaseResult } from "../src/measure/runner.js";
import {
  ENGINE_TARGETS,
  engineTargetResults,
  engineTargetsTable,
} from "../src/report/engine-targets.js";
import { summarise } from "../src/report/summary.js";
import { fixtureCores, fixtureInput, run, spec } from "./support/fixture-report.js";

/** A run where every target's rows were measured: p50 in ns for latency, msgs/s otherwise. */
function cases(): CaseResult[] {
  return [
    { spec: spec("latency", "bare-net-uds", "bytes", 64), runs: [run(30_000, 0)] },
    { spec: spec("latency", "uds", "raw", 64), runs: [run(33_000, 0)] }, // 1.10×: met
    { spec: spec("latency", "shm-ring-spin-channel", "frame", 64), runs: [run(1_000, 0)] },
    { spec: spec("latency", "shm-ring-spin", "raw", 64), runs: [run(2_600, 0)] }, // 2.6×: not met
    { spec: spec("throughput", "bare-net-uds", "bytes", 64), runs: [run(0, 150_000)] },
    { spec: spec("throughput", "uds", "raw", 64), runs: [run(0, 480_000)] }, // 3.2×: met
    { spec: spec("throughput", "uds-channel", "frame", 64), runs: [run(0, 720_000)] }, // 0.67×
    { spec: spec("throughput", "shm-ring-spin-channel", "frame", 64), runs: [run(0, 1_500_000)] },
    { spec: spec("throughput", "shm-ring-spin", "raw", 64), runs: [run(0, 750_000)] }, // 0.5×: met
    { spec: spec("stream", "uds-channel", "frame", 64), runs: [run(0, 4_000_000, false)] },
    { spec: spec("stream", "uds", "raw", 64), runs: [run(0, 1_600_000, false)] }, // 0.4×
    {
      spec: spec("stream", "shm-ring-spin-channel", "frame", 64),
      runs: [run(0, 5_000_000, false)],
    },
    { spec: spec("stream", "shm-ring-spin", "raw", 64), runs: [run(0, 2_600_000, false)] }, // 0.52×
    { spec: spec("throughput", "memory", "bytes", 64), runs: [run(0, 930_000)] }, // < 1 M
    // The gRPC engine against grpc-js, grpc-go and the uds RPC.
    { spec: spec("throughput", "bare-grpc-js", "bytes", 64), runs: [run(0, 5_000)] },
    { spec: spec("throughput", "grpc-uds", "raw", 64), runs: [run(0, 120_000)] }, // 24× bare
    { spec: spec("throughput", "go-grpc-uds", "bytes", 64), runs: [run(0, 80_000)] }, // 1.5×
    { spec: spec("latency", "grpc-uds", "raw", 64), runs: [run(42_900, 0)] }, // 1.3× uds
    { spec: spec("latency", "go-grpc-uds", "bytes", 64), runs: [run(40_000, 0)] }, // 1.0725×
    { spec: spec("stream", "grpc-uds", "raw", 64), runs: [run(0, 800_000, false)] }, // 0.5×
    { spec: spec("throughput", "bare-grpc-js-tcp", "bytes", 64), runs: [run(0, 5_000)] },
    { spec: spec("throughput", "grpc-tcp", "raw", 64), runs: [run(0, 40_000)] }, // 8× bare
    { spec: spec("throughput", "go-grpc-tcp", "bytes", 64), runs: [run(0, 40_000)] }, // 1.0×
    { spec: spec("latency", "grpc-tcp", "raw", 64), runs: [run(70_000, 0)] },
    { spec: spec("latency", "go-grpc-tcp", "bytes", 64), runs: [run(70_000, 0)] }, // 1.0×
  ];
}

test("engine targets: each ratio from two rows of the run, judged against its bound", () => {
  const results = engineTargetResults(summarise(cases(), fixtureInput, fixtureCores));
  assert.equal(results.length, ENGINE_TARGETS.length);
  const by = new Map(results.map((r) => [r.target.what, r]));
  const get = (prefix: string) => {
    const r = [...by.entries()].find(([what]) => what.startsWith(prefix))?.[1];
    assert.ok(r, prefix);
    return r;
  };
  const near = (a: number | undefined, b: number) =>
    assert.ok(Math.abs((a ?? 0) - b) < 1e-9, `${a} vs ${b}`);
  near(get("uds RPC round trip").value, 1.1);
  assert.equal(get("uds RPC round trip").met, true);
  near(get("shm-ring spin RPC round trip").value, 2.6);
  assert.equal(get("shm-ring spin RPC round trip").met, false);
  near(get("uds RPC throughput vs bare").value, 3.2);
  assert.equal(get("uds RPC throughput vs bare").met, true);
  near(get("shm-ring spin RPC throughput").value, 0.5);
  assert.equal(get("shm-ring spin RPC throughput").met, true, "the bound itself is met");
  near(get("uds server stream").value, 0.4);
  assert.equal(get("uds server stream").met, false);
  assert.equal(get("shm-ring spin server stream").met, true);
  near(get("the engine alone").value, 930_000);
  assert.equal(get("the engine alone").met, false);
  near(get("grpc-uds throughput vs bare grpc-js").value, 24);
  assert.equal(get("grpc-uds throughput vs bare grpc-js").met, true);
  near(get("grpc-uds throughput vs grpc-go over unix (64").value, 1.5);
  assert.equal(get("grpc-uds throughput vs grpc-go over unix (64").met, true);
  assert.equal(get("grpc-uds throughput vs grpc-go over unix (stretch)").met, false);
  near(get("grpc-uds round trip vs nearwire uds").value, 1.3);
  assert.equal(get("grpc-uds round trip vs nearwire uds").met, true, "the bound itself is met");
  near(get("grpc-uds round trip vs grpc-go").value, 1.0725);
  assert.equal(get("grpc-uds round trip vs grpc-go").met, false);
  near(get("grpc-uds server stream").value, 0.5);
  assert.equal(get("grpc-uds server stream").met, true);
  near(get("grpc-tcp throughput vs bare").value, 8);
  assert.equal(get("grpc-tcp throughput vs bare").met, false);
  assert.equal(get("grpc-tcp throughput vs grpc-go").met, true);
  assert.equal(get("grpc-tcp round trip vs grpc-go").met, true);

  const table = engineTargetsTable(summarise(cases(), fixtureInput, fixtureCores));
  const engine = table.rows.find((r) => r[0]?.startsWith("the engine alone"));
  assert.ok(engine);
  assert.deepEqual(engine.slice(1), [
    "memory/bytes/64B",
    "930 k",
    "930 k/s",
    "≥ 1.00 M/s",
    "NOT met",
  ]);
  const lat = table.rows.find((r) => r[0]?.startsWith("uds RPC round trip"));
  assert.ok(lat);
  assert.deepEqual(lat.slice(1), [
    "uds/raw/64B ÷ bare-net-uds/bytes/64B",
    "33.0 µs ÷ 30.0 µs",
    "1.10×",
    "≤ 1.15×",
    "met",
  ]);
  const stretch = table.rows.find((r) => r[0]?.includes("stretch"));
  assert.ok(stretch);
  assert.equal(stretch[5], "met (stretch)");
});

test("engine targets: a target whose rows did not run (or failed) is left out or shown as —", () => {
  const some = cases().filter((c) => !c.spec.key.startsWith("stream:"));
  const results = engineTargetResults(summarise(some, fixtureInput, fixtureCores));
  assert.equal(
    results.some((r) => r.target.row.startsWith("stream:")),
    false,
  );
  const failed = cases().map((c) =>
    c.spec.key === "latency:uds/raw/64B" ? { spec: c.spec, runs: [], error: "worker exited" } : c,
  );
  const lat = engineTargetResults(summarise(failed, fixtureInput, fixtureCores)).find(
    (r) => r.target.row === "latency:uds/raw/64B",
  );
  assert.ok(lat);
  assert.equal(lat.value, undefined);
  assert.equal(lat.met, undefined);
  const row = engineTargetsTable(summarise(failed, fixtureInput, fixtureCores)).rows.find((r) =>
    r[0]?.startsWith("uds RPC round trip"),
  );
  assert.ok(row);
  assert.equal(row[5], "—");
  assert.equal(engineTargetsTable([]).rows.length, 0);
});
