import type { MessagePort, Worker } from "node:worker_threads";
import type { WaitMode } from "@nearwire/ring";

/** How a receiving side waits for frames (defined with the ring channel, @nearwire/ring). */
export type { WaitMode } from "@nearwire/ring";

/**
 * The thread on the other side: a `Worker` (seen from the thread that created it), or a
 * `MessagePort` — `parentPort` inside a worker, or one end of a `MessageChannel` handed to two
 * workers. Only set-up messages go through it; frames go through the shared rings.
 */
export type WorkerEndpoint = Worker | MessagePort;

/** Options of {@link createWorkerChannelProvider}. */
export interface WorkerChannelOptions {
  /** The other thread (see {@link WorkerEndpoint}). */
  port: WorkerEndpoint;
  /**
   * Capacity of each ring, bytes (power of two, 4 KiB – 1 GiB); default 4 MiB. The connecting
   * side creates the segment, so its value is used. Segment = 4 KiB + 2 × ringBytes.
   */
  ringBytes?: number;
  /**
   * Largest frame payload this side sends and accepts, bytes; the connection uses the smaller
   * of both sides' values (never less than one record, `ringBytes / 2 - 16`; larger frames
   * travel as several records). Default 4 MiB + 64 KiB; the worker transport sets it to
   * `maxMessageBytes` + 64 KiB.
   */
  maxFrameBytes?: number;
  /**
   * Say at set-up that this side takes BATCH frames (several RPC messages in one frame,
   * PROTOCOL.md §5.2; the offer's and the answer's `features`): for the RPC engine, which
   * `createWorkerTransport` runs on top (its `batches` option, default true there). Default
   * false: a channel used directly never sees a BATCH.
   */
  batches?: boolean;
  /**
   * `spin`: poll the ring all the time (a busy core per side, lowest latency); `park`: sleep in
   * `Atomics.waitAsync` until the producer notifies; `adaptive` (default): spin `spinUs` after
   * the last activity, then park.
   */
  wait?: WaitMode;
  /** Spin window of `adaptive`, µs; default 50. */
  spinUs?: number;
  /**
   * Connect: how long to wait for the other thread to accept, ms; default 10,000 (it includes
   * the worker's start-up: the offer waits in its port until it listens).
   */
  handshakeTimeoutMs?: number;
}
