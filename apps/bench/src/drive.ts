import type { CaseSpec } from "./case-spec.js";
import type { BenchClient } from "./endpoint.js";
import { SampleRecorder } from "./latency.js";
import type { CpuTime, RunResult } from "./run-result.js";

/**
 * The client's measuring loops. Latency and throughput start `inFlight` loops of back-to-back
 * calls and time every call; stream repeats one-way streams of a calibrated length. Every
 * call of the window is recorded; the window closes when the last in-flight call completes.
 */

const now = () => Number(process.hrtime.bigint());

/** Streams are this long in wall time (calibrated in warm-up), so a window holds many. */
const STREAM_TARGET_NS = 25e6;

/** Warm-up makes at least this many calls (so the JIT has optimised the path), within 4× its time. */
const MIN_WARMUP_CALLS = 1000;

/** State the warm-up hands to the measurement. */
export interface WarmState {
  /** Messages per stream call, for `stream` mode. */
  streamCount: number;
}

/** Runs the case's traffic for `warmupMs` (at least a few calls), and calibrates streams. */
export async function warmUp(
  client: BenchClient,
  spec: CaseSpec,
  warmupMs: number,
): Promise<WarmState> {
  const end = now() + warmupMs * 1e6;
  if (spec.mode === "stream") {
    let count = spec.payloadBytes >= 1 << 20 ? 4 : spec.payloadBytes >= 1 << 16 ? 32 : 256;
    let rounds = 0;
    do {
      const t0 = now();
      await client.stream(count);
      const perMsg = (now() - t0) / count;
      count = Math.max(4, Math.min(200_000, Math.round(STREAM_TARGET_NS / Math.max(perMsg, 1))));
      rounds++;
    } while ((now() < end || rounds < 2) && rounds < 10_000);
    return { streamCount: count };
  }
  const cap = now() + Math.max(1000, warmupMs * 4) * 1e6;
  await runCalls(client, spec.inFlight, end, undefined, MIN_WARMUP_CALLS, cap);
  return { streamCount: 0 };
}

async function runCalls(
  client: BenchClient,
  inFlight: number,
  endNs: number,
  rec: SampleRecorder | undefined,
  minCalls: number,
  capNs = Number.POSITIVE_INFINITY,
): Promise<number> {
  let count = 0;
  const loop = async () => {
    for (;;) {
      const t0 = now();
      if ((t0 >= endNs && count >= minCalls) || t0 >= capNs || (rec?.full ?? false)) break;
      await client.roundTrip();
      rec?.record(now() - t0);
      count++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, loop));
  return count;
}

function cpuDelta(before: NodeJS.CpuUsage): CpuTime {
  const d = process.cpuUsage(before);
  return { userUs: d.user, systemUs: d.system };
}

/** Measures one window of `durationMs`; the server's CPU is filled in by the orchestrator. */
export async function measure(
  client: BenchClient,
  spec: CaseSpec,
  durationMs: number,
  warm: WarmState,
): Promise<Omit<RunResult, "server" | "serverCpuUsPerMsg">> {
  const cpu0 = process.cpuUsage();
  const t0 = now();
  const end = t0 + durationMs * 1e6;
  let count = 0;
  let rec: SampleRecorder | undefined;
  if (spec.mode === "stream") {
    let rounds = 0;
    while ((now() < end || rounds === 0) && rounds < 1_000_000) {
      await client.stream(warm.streamCount);
      count += warm.streamCount;
      rounds++;
    }
  } else {
    rec = new SampleRecorder();
    count = await runCalls(client, spec.inFlight, end, rec, 1);
  }
  const elapsedNs = now() - t0;
  const clientCpu = cpuDelta(cpu0);
  const msgsPerSec = count / (elapsedNs / 1e9);
  const result: Omit<RunResult, "server" | "serverCpuUsPerMsg"> = {
    count,
    elapsedNs,
    msgsPerSec,
    mbPerSec: (msgsPerSec * client.wireBytes) / 1e6,
    wireBytes: client.wireBytes,
    client: clientCpu,
    clientCpuUsPerMsg: (clientCpu.userUs + clientCpu.systemUs) / count,
  };
  if (rec) result.latency = rec.summary();
  return result;
}
