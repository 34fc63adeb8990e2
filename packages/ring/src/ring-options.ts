/** How a receiving side waits for frames (see {@link RingOptions.wait}). */
export type WaitMode = "spin" | "park" | "adaptive";

/**
 * The options every ring transport takes (`ShmRingOptions` of `@nearwire/shm-ring`,
 * `WorkerChannelOptions` of `@nearwire/worker` extend it): the ring's size, the frame limit,
 * BATCH frames and how the receiving side waits.
 */
export interface RingOptions {
  /**
   * Capacity of each ring (one per direction), bytes: a power of two in [4 KiB, 1 GiB].
   * Default 4 MiB, so a segment is 8 MiB + 4 KiB (4 KiB + 2 × ringBytes). The side that
   * creates the segment decides (the shm-ring server, the worker connector); the other side's
   * value is ignored. The ring size does not cap the message size: a frame larger than one
   * record (`ringBytes / 2 - 16`) travels as several (PROTOCOL.md §6.3).
   */
  ringBytes?: number;
  /**
   * Largest frame payload this side sends and accepts, bytes; the connection uses the smaller
   * of both sides' values (never less than one record). Default 4 MiB + 64 KiB; the shm-ring
   * and worker transports set it to `maxMessageBytes` + 64 KiB. A larger frame is refused by
   * `send` with RESOURCE_EXHAUSTED reason `frame-too-large`.
   */
  maxFrameBytes?: number;
  /**
   * Announce at set-up that this side takes BATCH frames (several RPC messages in one frame;
   * the `features` key, PROTOCOL.md §6.1 and §5.2): for the RPC engine, which the transports
   * (`createShmRingTransport`, `createWorkerTransport`) run on top (their `batches` option,
   * default true there). Default false: a channel used directly never sees a BATCH.
   */
  batches?: boolean;
  /**
   * How this side waits for frames: `spin` polls the ring all the time (one busy core per
   * side, lowest latency), `park` sleeps until the producer rings (a doorbell byte on
   * shm-ring's control socket, `Atomics.notify` between worker threads, slept on with
   * `Atomics.waitAsync`), and `adaptive` spins for `spinUs` after the last activity, then
   * parks. Activity is a frame received or sent, except that a side which sent 8 or more
   * records per record received over its last 64 (an upload, a long stream: it receives only
   * stream credit) parks while it goes on sending: it waits on its own source, on credit or on
   * ring space, not on an answer to each send. The other end of such a flow, a side which
   * received 8 or more records per record sent over its last 64 received (CREDIT counted on
   * neither side), parks as soon as its ring is empty and is not woken by its own CREDIT: the
   * producer's bell wakes it, so its spinning does not hold the core from its own work (an
   * upload server's file writes). Default `adaptive`.
   */
  wait?: WaitMode;
  /** Spin window of `adaptive` mode, µs. Default 50. */
  spinUs?: number;
}
