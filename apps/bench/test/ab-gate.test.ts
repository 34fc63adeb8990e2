import assert from "node:assert/strict";
import { test } from "node:test";
import { AB_LIMITS, abRows, judge } from "../src/ci/ab-gate.js";
import { makeCase } from "../src/measure/case-spec.js";
import type { CodecResult } from "../src/measure/codec-bench.js";
import { steady } from "../src/measure/drive.js";
import type { RunResult } from "../src/measure/run-result.js";
import type { CaseResult } from "../src/measure/runner.js";
import { found } from "./support/found.js";

function run(p50Ns: number, msgsPerSec: number): RunResult {
  return {
    count: 1000,
    elapsedNs: 1e9,
    msgsPerSec,
    mbPerSec: 0,
    wireBytes: 64,
    client: { userUs: 0, systemUs: 0 },
    clientCpuUsPerMsg: 0,
    server: { userUs: 0, systemUs: 0 },
    serverCpuUsPerMsg: 0,
    latency: { p50Ns } as RunResult["latency"],
  } as RunResult;
}

const latency = makeCase({
  mode: "latency",
  layer: "rpc",
  transport: "uds",
  codec: "raw",
  message: "chunk",
  payload: "64B",
  payloadBytes: 64,
  inFlight: 1,
});
const throughput = makeCase({ ...latency, mode: "throughput", inFlight: 64 });

test("judge: the median pair and the best runs decide; one unlucky pair of three does not fail", () => {
  const noisy = judge("k", "lower", 1.3, [100, 200, 100], [100, 100, 100]);
  assert.deepEqual(noisy.pairs, [1, 2, 1]);
  assert.equal(noisy.ratio, 1);
  assert.equal(noisy.status, "ok");
  const slower = judge("k", "lower", 1.3, [150, 140, 135], [100, 100, 100]);
  assert.equal(slower.bestRatio, 1.35);
  assert.equal(judge("k", "lower", 1.5, [150, 140, 135], [100, 100, 100]).status, "ok");
  assert.equal(slower.status, "REGRESSED");
  const fewer = judge("k", "higher", 0.7, [50, 60, 65], [100, 100, 100]);
  assert.equal(fewer.status, "REGRESSED");
  // Two slow runs of three and one as fast as the base's best: noise, not a regression (the
  // A/A pattern CI met on a codec row: pairs 0.535, 0.501, 0.950).
  const twoUnlucky = judge("k", "higher", 0.6, [53.5, 50.1, 95], [100, 100, 100]);
  assert.equal(twoUnlucky.ratio, 0.535);
  assert.equal(twoUnlucky.bestRatio, 0.95);
  assert.equal(twoUnlucky.status, "ok");
  assert.equal(judge("k", "lower", 1.3, [150, 140, 90], [100, 100, 100]).status, "ok");
  assert.equal(judge("k", "higher", 0.7, [200, 210, 190], [100, 100, 100]).status, "faster");
  assert.equal(judge("k", "lower", 1.3, [100], []).status, "new");
  assert.equal(judge("k", "lower", 1.3, [], [100]).status, "gone");
});

test("abRows pairs cases by key and codec results by codec/message/op", () => {
  const current: CaseResult[] = [
    { spec: latency, runs: [run(160e3, 0), run(170e3, 0), run(155e3, 0)] },
    { spec: throughput, runs: [run(0, 100e3), run(0, 98e3), run(0, 99e3)] },
  ];
  const base: CaseResult[] = [
    { spec: throughput, runs: [run(0, 100e3), run(0, 100e3), run(0, 100e3)] },
    { spec: latency, runs: [run(100e3, 0), run(100e3, 0), run(100e3, 0)] },
  ];
  const codec = (enc: number): CodecResult[] => [
    { codec: "raw", message: "tick", encodeOpsPerSec: enc, decodeOpsPerSec: 1e6 } as CodecResult,
  ];
  const rows = abRows(current, base, [codec(0.5e6), codec(0.5e6)], [codec(2e6), codec(2e6)]);
  const by = new Map(rows.map((r) => [r.key, r]));
  const get = (key: string) => found(by.get(key), key);
  assert.equal(get("latency:uds/raw/64B").status, "REGRESSED");
  assert.equal(get("latency:uds/raw/64B").limit, AB_LIMITS.latency);
  assert.equal(get("throughput:uds/raw/64B").status, "ok");
  assert.equal(get("codec:raw/tick/encode").status, "REGRESSED");
  assert.equal(get("codec:raw/tick/encode").ratio, 0.25);
  assert.equal(get("codec:raw/tick/decode").status, "ok");
});

test("steady(): the last three windows must agree within 10 % of their median", () => {
  assert.equal(steady([100, 100]), false, "too few windows");
  assert.equal(steady([10, 50, 100, 105, 95]), true);
  assert.equal(steady([100, 100, 100, 130]), false);
  assert.equal(steady([0, 0, 0]), false, "no calls is not steady");
});

test("abRows: hand-written baselines are shown (info), never gated", () => {
  const bare = makeCase({
    ...latency,
    layer: "baseline",
    transport: "bare-net-uds",
    codec: "bytes",
  });
  const rows = abRows(
    [{ spec: bare, runs: [run(900e3, 0), run(900e3, 0), run(900e3, 0)] }],
    [{ spec: bare, runs: [run(100e3, 0), run(100e3, 0), run(100e3, 0)] }],
    [],
    [],
  );
  const row = found(rows[0], "the bare row");
  assert.equal(row.status, "info");
  assert.equal(row.ratio, 9);
});
