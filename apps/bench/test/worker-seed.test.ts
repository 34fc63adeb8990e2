import assert from "node:assert/strict";
import { test } from "node:test";
import { type CaseSpec, makeCase } from "../src/measure/case-spec.js";
import type { RunResult } from "../src/measure/run-result.js";
import { fmtNs } from "../src/report/format.js";
import { renderMarkdown } from "../src/report/markdown-report.js";
import { seedComparison } from "../src/report/seed-comparison.js";
import { summarise } from "../src/report/summary.js";
import { fixtureReport } from "./support/fixture-report.js";

const input = {
  transports: [
    { id: "worker-spin-channel", layer: "channel" as const, baseline: "bare-postmessage" },
    { id: "worker-park-channel", layer: "channel" as const, baseline: "bare-postmessage" },
    { id: "shm-ring-spin-channel", layer: "channel" as const, baseline: "uds-channel" },
  ],
  codecs: ["raw"],
};

const spec = (mode: CaseSpec["mode"], transport: string): CaseSpec =>
  makeCase({
    mode,
    layer: transport.startsWith("bare-") ? "baseline" : "channel",
    transport,
    codec: transport.startsWith("bare-") ? "bytes" : "frame",
    message: "chunk",
    payload: "64B",
    payloadBytes: 64,
    inFlight: 1,
  });

function run(p50Ns: number, msgsPerSec: number, idleCpuPercent?: number): RunResult {
  const r: RunResult = {
    count: 1000,
    elapsedNs: 250e6,
    msgsPerSec,
    mbPerSec: 1,
    wireBytes: 64,
    client: { userUs: 1, systemUs: 1 },
    server: { userUs: 1, systemUs: 1 },
    clientCpuUsPerMsg: 1,
    serverCpuUsPerMsg: 1,
    latency: {
      count: 1000,
      minNs: p50Ns,
      p50Ns,
      p90Ns: p50Ns,
      p99Ns: p50Ns * 2,
      p999Ns: p50Ns * 3,
      maxNs: p50Ns * 4,
      meanNs: p50Ns * 1.5,
      stddevNs: 1,
      hdr: "",
    },
  };
  if (idleCpuPercent !== undefined) r.idleCpuPercent = idleCpuPercent;
  return r;
}

test("worker seed table: postMessage, worker rings and shm-ring side by side, idle CPU of park, the targets from this run's rows", () => {
  const cases = [
    { spec: spec("latency", "bare-postmessage"), runs: [run(20_000, 50_000)] },
    { spec: spec("stream", "bare-postmessage"), runs: [run(0, 150_000)] },
    { spec: spec("latency", "worker-spin-channel"), runs: [run(2_000, 400_000)] },
    { spec: spec("stream", "worker-spin-channel"), runs: [run(0, 6_000_000)] },
    {
      spec: spec("latency", "worker-park-channel"),
      runs: [run(30_000, 30_000, 0.5), run(31_000, 30_000, 1.5)],
    },
    { spec: spec("latency", "shm-ring-spin-channel"), runs: [run(1_000, 500_000)] },
  ];
  const r = { ...fixtureReport(), cases, summaries: summarise(cases, input, 2) };
  const { worker } = seedComparison(r);
  assert.deepEqual(
    worker.rows.map((row) => [row[0], row[5], row[7], row[11]]),
    [
      ["SPSC channel, in process", "bare-postmessage/bytes/64B", fmtNs(20_000), ""],
      ["", "worker-spin-channel/frame/64B", fmtNs(2_000), ""],
      ["", "worker-park-channel/frame/64B", fmtNs(30_500), "1.00 %"],
      ["SPSC ring, processes", "shm-ring-spin-channel/frame/64B", fmtNs(1_000), ""],
    ],
  );
  assert.equal(worker.rows[1]?.[9], "6.00 M");
  assert.match(worker.note, /worker-spin-channel p50 \/ shm-ring-spin-channel p50 = 2\.00×/);
  assert.match(worker.note, /bare-postmessage p50 \/ worker-spin-channel p50 = 10\.00×/);
  assert.match(worker.note, /park idle CPU 1\.00 % of a core/);
  assert.match(renderMarkdown(r), /### Worker threads: rings vs postMessage vs processes/);
});
