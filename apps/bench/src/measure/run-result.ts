import type { LatencySummary } from "./latency.js";

/** CPU time of one process over the measured window, in µs (process.cpuUsage deltas). */
export interface CpuTime {
  userUs: number;
  systemUs: number;
}

/** One measured run of one case (fresh server and client processes). */
export interface RunResult {
  /** Messages completed in the window: round trips, or messages received for `stream`. */
  count: number;
  /** Wall time of the window, in ns (until the last in-flight call completed). */
  elapsedNs: number;
  msgsPerSec: number;
  /** Payload megabytes (10^6) per second, one way: `msgsPerSec × wireBytes`. */
  mbPerSec: number;
  /** Encoded message (or raw payload) bytes, one way, before framing. */
  wireBytes: number;
  /** Per-call round-trip latency, every call recorded (latency and throughput modes). */
  latency?: LatencySummary;
  client: CpuTime;
  server: CpuTime;
  /** Client CPU (user+system) per message, µs. */
  clientCpuUsPerMsg: number;
  /** Server CPU (user+system) per message, µs; its window spans the client's plus IPC turns. */
  serverCpuUsPerMsg: number;
  /**
   * Bytes the client process allocated on the V8 JS heap per message over the window (GC
   * accounting, see `heap-per-call.ts`; ArrayBuffer backing stores not included).
   */
  clientHeapBytesPerMsg?: number;
  /**
   * Park-mode worker rows: CPU of the client process (both threads) over an idle second after
   * the window, with the connection open and parked, percent of one core.
   */
  idleCpuPercent?: number;
  /** The warm-up before the window: wall time (ns), calls, and whether it ended steady. */
  warmup?: { ns: number; calls: number; steady: boolean };
  /**
   * The machine's 1-minute load average when the window ended (`os.loadavg()[0]`), the case's
   * own processes included. Above the core count, other processes shared the CPUs.
   */
  loadAverage1m?: number;
  /**
   * CPU the rest of the machine used during the window, in cores: the busy time of every CPU
   * (`/proc/stat`) minus the case's own server and client, over the window's wall time. Linux
   * only. Unlike the 1-minute load average it sees a busy neighbour at once.
   */
  otherCpuCores?: number;
}
