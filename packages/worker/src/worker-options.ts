import type { MessagePort, Worker } from "node:worker_threads";
import type { RingOptions } from "@nearwire/ring";

/** How a receiving side waits for frames (defined with the ring options, @nearwire/ring). */
export type { WaitMode } from "@nearwire/ring";

/**
 * The thread on the other side: a `Worker` (seen from the thread that created it), or a
 * `MessagePort` — `parentPort` inside a worker, or one end of a `MessageChannel` handed to two
 * workers. Only set-up messages go through it; frames go through the shared rings.
 */
export type WorkerEndpoint = Worker | MessagePort;

/**
 * Options of {@link createWorkerChannelProvider}: the ring options of `@nearwire/ring`
 * ({@link RingOptions}: `ringBytes`, `maxFrameBytes`, `batches`, `wait`, `spinUs`; the
 * connecting side creates the segment, so its `ringBytes` is used) and the set-up's.
 */
export interface WorkerChannelOptions extends RingOptions {
  /** The other thread (see {@link WorkerEndpoint}). */
  port: WorkerEndpoint;
  /**
   * Connect: how long to wait for the other thread to accept, ms; default 10,000 (it includes
   * the worker's start-up: the offer waits in its port until it listens).
   */
  handshakeTimeoutMs?: number;
  /**
   * Bytes of messages the other thread may send on one call before this side's credit for them
   * comes back (the byte window, PROTOCOL.md §5.4), 64 KiB … 2 MiB, else INVALID_ARGUMENT;
   * announced in the set-up (`creditWindowBytes` beside `features`, as shm-ring's handshake).
   * Left out, a peer holds 2 MiB per stream. A listener announces it only to connectors that
   * send `features` (nearwire's RPC clients).
   */
  creditWindowBytes?: number;
}
