import type { CaseSpec } from "./case-spec.js";
import type { BenchClient } from "./endpoint.js";
import { startHeapAccounting } from "./heap-per-call.js";
import { SampleRecorder } from "./latency.js";
import type { CpuTime, RunResult } from "./run-result.js";

/**
 * The client's measuring loops. Latency and throughput start `inFlight` loops of back-to-back
 * calls and time every call; stream repeats one-way streams of a calibrated length. Every
 * call of the window is recorded; the window closes when the last in-flight call completes.
 */

/**
 * The clock of every timed call, ns: `performance.now()`, the monotonic clock behind
 * `process.hrtime` as a double (sub-µs resolution). A read costs ~40 ns here against ~70 ns for
 * `Number(process.hrtime.bigint())`, which allocates a BigInt: two reads per call are the
 * instrument's own cost, charged to every row alike.
 */
const now = () => performance.now() * 1e6;

/** Streams are this long in wall time (calibrated in warm-up), so a window holds many. */
const STREAM_TARGET_NS = 25e6;

/**
 * Warm-up makes at least this many calls (V8 optimises by call counts, not by time): a fast
 * transport does them in a fraction of a second; grpc-js, whose rate still climbs after its
 * windows first look steady, gets there in a few seconds (the cap bounds it).
 */
const MIN_WARMUP_CALLS = 5000;

/** Warm-up is judged in windows of this length. */
const WARMUP_WINDOW_NS = 100e6;
/** The case is steady when this many successive windows agree… */
const STEADY_WINDOWS = 3;
/** …within this relative distance of their median. */
const STEADY_TOLERANCE = 0.1;
/** Warm-up stops after this long even when the case never got steady (ms, or 10× `--warmup`). */
const WARMUP_CAP_MS = 5000;

/** What the warm-up did, recorded in the JSON for every run. */
export interface WarmState {
  /** Messages per stream call, for `stream` mode. */
  streamCount: number;
  /** Wall time of the warm-up, ns. */
  warmupNs: number;
  /** Calls (or stream messages) made during the warm-up. */
  warmupCalls: number;
  /** True when successive windows agreed (false: the cap ended the warm-up). */
  steady: boolean;
}

/**
 * Warms the case up until it is steady: at least `warmupMs` and {@link MIN_WARMUP_CALLS}
 * calls, then until {@link STEADY_WINDOWS} successive 100 ms windows give rates within
 * {@link STEADY_TOLERANCE} of their median — never by a fixed time alone (grpc-js needs
 * seconds before its rate settles). Capped at max(10 × `warmupMs`, 5 s). Streams are
 * calibrated on the way: each stream call lasts about 25 ms.
 */
export async function warmUp(
  client: BenchClient,
  spec: CaseSpec,
  warmupMs: number,
): Promise<WarmState> {
  const t0 = now();
  const minEnd = t0 + warmupMs * 1e6;
  const cap = t0 + Math.max(warmupMs * 10, WARMUP_CAP_MS) * 1e6;
  const rates: number[] = [];
  let calls = 0;
  let count = spec.payloadBytes >= 1 << 20 ? 4 : spec.payloadBytes >= 1 << 16 ? 32 : 256;
  for (;;) {
    const w0 = now();
    let n = 0;
    if (spec.mode === "stream") {
      do {
        const s0 = now();
        await client.stream(count);
        n += count;
        const perMsg = (now() - s0) / count;
        count = Math.max(4, Math.min(200_000, Math.round(STREAM_TARGET_NS / Math.max(perMsg, 1))));
      } while (now() - w0 < WARMUP_WINDOW_NS);
    } else {
      n = await runCalls(client, spec.inFlight, w0 + WARMUP_WINDOW_NS, undefined, 1, cap);
    }
    calls += n;
    rates.push(n / ((now() - w0) / 1e9));
    const t = now();
    if (t >= cap) break;
    if (t >= minEnd && calls >= MIN_WARMUP_CALLS && steady(rates)) {
      return { streamCount: count, warmupNs: t - t0, warmupCalls: calls, steady: true };
    }
  }
  return { streamCount: count, warmupNs: now() - t0, warmupCalls: calls, steady: false };
}

/** True when the last {@link STEADY_WINDOWS} rates lie within the tolerance of their median. */
export function steady(rates: readonly number[]): boolean {
  if (rates.length < STEADY_WINDOWS) return false;
  const last = rates.slice(-STEADY_WINDOWS);
  const mid = [...last].sort((a, b) => a - b)[Math.floor(STEADY_WINDOWS / 2)] as number;
  return mid > 0 && last.every((r) => Math.abs(r - mid) <= STEADY_TOLERANCE * mid);
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
  const heap = startHeapAccounting();
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
  const heapBytes = heap.stop();
  const msgsPerSec = count / (elapsedNs / 1e9);
  const result: Omit<RunResult, "server" | "serverCpuUsPerMsg"> = {
    count,
    elapsedNs,
    msgsPerSec,
    mbPerSec: (msgsPerSec * client.wireBytes) / 1e6,
    wireBytes: client.wireBytes,
    client: clientCpu,
    clientCpuUsPerMsg: (clientCpu.userUs + clientCpu.systemUs) / count,
    clientHeapBytesPerMsg: heapBytes / count,
    warmup: { ns: warm.warmupNs, calls: warm.warmupCalls, steady: warm.steady },
  };
  if (rec) result.latency = rec.summary();
  return result;
}
