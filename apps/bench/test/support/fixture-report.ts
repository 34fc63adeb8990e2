import { type CaseSpec, makeCase } from "../../src/measure/case-spec.js";
import type { CodecResult } from "../../src/measure/codec-bench.js";
import type { MatrixInput } from "../../src/measure/matrix.js";
import type { RunResult } from "../../src/measure/run-result.js";
import type { CaseResult } from "../../src/measure/runner.js";
import { type BenchReport, summarise } from "../../src/report/summary.js";

/** Cores of the fixture's machine, which a run's load average is judged against. */
export const fixtureCores = 2;

/** A fixed, hand-made result set (no measuring) for report, chart and CI tests. */
export const fixtureInput: MatrixInput = {
  transports: [
    { id: "uds", layer: "rpc", baseline: "bare-net-uds" },
    { id: "shm-ring-spin", layer: "rpc", baseline: "uds" },
    { id: "uds-channel", layer: "channel", baseline: "bare-net-uds" },
  ],
  codecs: ["json", "raw"],
};

export function spec(
  mode: CaseSpec["mode"],
  transport: string,
  codec: string,
  bytes: number,
): CaseSpec {
  const layer = transport.startsWith("bare-")
    ? "baseline"
    : transport.endsWith("-channel")
      ? "channel"
      : "rpc";
  return makeCase({
    mode,
    layer,
    transport,
    codec,
    message: "chunk",
    payload: bytes === 64 ? "64B" : "64KiB",
    payloadBytes: bytes,
    inFlight: mode === "throughput" ? 64 : 1,
  });
}

export function run(p50Ns: number, msgsPerSec: number, withLatency = true): RunResult {
  const r: RunResult = {
    count: Math.round(msgsPerSec / 4),
    elapsedNs: 250e6,
    msgsPerSec,
    mbPerSec: (msgsPerSec * 64) / 1e6,
    wireBytes: 64,
    client: { userUs: 1000, systemUs: 500 },
    server: { userUs: 900, systemUs: 400 },
    clientCpuUsPerMsg: 60,
    serverCpuUsPerMsg: 52,
  };
  if (withLatency) {
    r.latency = {
      count: 1000,
      minNs: p50Ns * 0.8,
      p50Ns,
      p90Ns: p50Ns * 1.2,
      p99Ns: p50Ns * 2,
      p999Ns: p50Ns * 5,
      maxNs: p50Ns * 20,
      meanNs: p50Ns * 1.1,
      stddevNs: p50Ns * 0.3,
      hdr: "",
    };
  }
  return r;
}

/** Case results: p50 in ns and msgs/s per run. */
export function fixtureCases(scale = 1): CaseResult[] {
  return [
    {
      spec: spec("latency", "bare-net-uds", "bytes", 64),
      runs: [run(50_000, 18_000), run(52_000, 17_500)],
    },
    {
      spec: spec("latency", "uds", "json", 64),
      runs: [run(60_000 * scale, 15_000), run(61_000 * scale, 15_200)],
    },
    {
      spec: spec("latency", "shm-ring-spin", "json", 64),
      runs: [run(5_000, 180_000), run(5_200, 170_000)],
    },
    { spec: spec("latency", "uds-channel", "frame", 64), runs: [run(53_000, 17_000)] },
    { spec: spec("latency", "bare-net-uds", "bytes", 65536), runs: [run(300_000, 3_000)] },
    { spec: spec("latency", "uds", "json", 65536), runs: [run(900_000, 1_000)] },
    { spec: spec("throughput", "bare-net-uds", "bytes", 64), runs: [run(200_000, 170_000)] },
    { spec: spec("throughput", "uds", "json", 64), runs: [run(500_000, 120_000 / scale)] },
    { spec: spec("stream", "uds-channel", "frame", 64), runs: [run(0, 1_000_000, false)] },
    { spec: spec("stream", "bare-net-uds", "bytes", 64), runs: [run(0, 250_000, false)] },
    { spec: spec("latency", "uds", "raw", 64), runs: [], error: 'worker exited before "ready"' },
  ];
}

export const fixtureCodecs: CodecResult[] = ["json", "raw"].flatMap((codec) =>
  (["tick", "chunk"] as const).map((message) => ({
    codec,
    message,
    encodedBytes: codec === "json" ? 126 : 48,
    encodeOpsPerSec: codec === "json" ? 500_000 : 2_000_000,
    ...(codec === "json" ? {} : { encodeInPlaceOpsPerSec: 8_000_000 }),
    decodeOpsPerSec: codec === "json" ? 400_000 : 4_000_000,
    encodeRme: 2,
    decodeRme: 3,
    batch: 10,
    encodeSamples: 100,
    decodeSamples: 100,
  })),
);

/** A complete report built from the fixture. */
export function fixtureReport(scale = 1): BenchReport {
  const cases = fixtureCases(scale);
  return {
    tool: "nearwire-bench",
    formatVersion: 1,
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:02:00.000Z",
    command: ["--duration", "250ms"],
    settings: { durationMs: 250, warmupMs: 100, repeat: 2, pin: true, seed: 1, profile: "custom" },
    machine: {
      node: "v20.0.0",
      v8: "11",
      cpuModel: "Test CPU",
      cores: fixtureCores,
      kernel: "6.0",
      platform: "linux",
      arch: "x64",
      totalMemBytes: 4 * 1024 ** 3,
      tasksetAvailable: true,
    },
    availability: [{ name: "@nearwire/grpc-uds", status: "absent", detail: "no dist/" }],
    found: fixtureInput,
    messagesFromPackage: true,
    codecs: fixtureCodecs,
    cases,
    summaries: summarise(cases, fixtureInput, fixtureCores),
  };
}

/**
 * Words a report must not print: a file outside the repository (`DESIGN.md`) or the project's
 * history (an issue number, "the seed").
 */
export const HISTORY = /DESIGN\.md|\bissues? \d+|\bissue's\b|\bseed's\b|\bthe seed\b/i;
