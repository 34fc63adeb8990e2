import { giveIoBuffer, IO_BUFFER_BYTES, ioBuffersCrowded, takeIoBuffer } from "./io-buffers.js";

/**
 * Size of a write batch: received chunks are copied into one and it is written to the file
 * when full (or when the transfer drains); one of the process's pooled I/O buffers. The copy
 * (one per byte, from the received frame) lets the frame go at once.
 */
export const WRITE_BATCH_BYTES = IO_BUFFER_BYTES;

/**
 * Writes a transfer's chunks behind its receive loop (the server's upload, the client's
 * download): each chunk is copied into a write batch and a full batch is written while the
 * next one fills, so the loop keeps taking messages (and granting credit) instead of waiting
 * for the disk chunk by chunk, and a received message is done with once copied (its buffer can
 * be lent back). At most `sink.writesInFlight` (default 1) batches being written per transfer
 * (one while the process has many I/O buffers out: {@link ioBuffersCrowded}), and one filling.
 */
export interface ChunkWriter {
  /**
   * Copies `data` into the batch (writing a full one). Returns a promise when the handler has
   * to wait for a write before the rest of `data` fits; rejects with the first write error.
   */
  write(data: Uint8Array): Promise<void> | undefined;
  /** Writes what the batch holds; resolves once everything is written (rejects likewise). */
  drain(): Promise<void>;
  /** Gives the batches back to the pool (after `drain`, or when the transfer failed). */
  release(): void;
}

/**
 * Where a {@link ChunkWriter}'s batches go, in order: each `write` continues the file where the
 * last one ended, and up to `writesInFlight` (default 1: each after the last ended) run at once
 * and may end in any order. `done` is called once the write ended, with its error if it failed
 * (null or undefined when it did not): a callback, not a promise, as a write is a callback down
 * to `fs.write`.
 */
export interface BatchSink {
  write(batch: Uint8Array, done: (err: unknown) => void): void;
  /** Writes that may run at once (default 1; a file's `FileWrites` says how many suit it). */
  readonly writesInFlight?: number;
}

/** A {@link ChunkWriter} over `sink` (the server's partial upload does its checkpoints there). */
export function chunkWriter(sink: BatchSink): ChunkWriter {
  let filling: Uint8Array | undefined;
  let filled = 0;
  /** Writes in flight, and how many may be. */
  let writing = 0;
  const most = Math.max(1, sink.writesInFlight ?? 1);
  /** No other write may start: `most` are in flight, or one is and the process is crowded. */
  const busy = (): boolean => writing >= most || (writing > 0 && ioBuffersCrowded());
  let failure: unknown;
  let failed = false;
  let released = false;
  /** What waits for a write in flight to end (`write` and `drain` going on). */
  let waiting: (() => void)[] = [];

  const submit = (): void => {
    const batch = filling as Uint8Array;
    const n = filled;
    filling = undefined;
    filled = 0;
    writing++;
    sink.write(batch.subarray(0, n), (err) => {
      writing--;
      if (err != null) {
        failed = true;
        failure = err;
        giveIoBuffer(batch); // the write is over: the batch is free again
      } else if (released || filling !== undefined) giveIoBuffer(batch);
      else filling = batch;
      const then = waiting;
      waiting = [];
      for (const go of then) go();
    });
  };
  /** Copies `data[from …]` until the batch is full and no write may start; returns where it stopped. */
  const copy = (data: Uint8Array, from: number): number => {
    let at = from;
    while (at < data.byteLength) {
      if (filling === undefined) filling = takeIoBuffer();
      const n = Math.min(filling.byteLength - filled, data.byteLength - at);
      filling.set(n === data.byteLength ? data : data.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === filling.byteLength) {
        if (busy()) return at;
        submit();
      }
    }
    return at;
  };
  /** The rest of `data` from `from`, as writes end: one promise per wait. */
  const writeRest = (data: Uint8Array, from: number): Promise<void> =>
    new Promise((resolve, reject) => {
      let at = from;
      /** Runs now and again each time a write ended, until `data` is all in batches. */
      const go = (): void => {
        if (failed) reject(failure);
        else if (busy()) waiting.push(go);
        else {
          if (filled === WRITE_BATCH_BYTES) submit();
          at = copy(data, at);
          if (at < data.byteLength || filled === WRITE_BATCH_BYTES) waiting.push(go);
          else resolve();
        }
      };
      go();
    });
  return {
    write(data) {
      if (failed) return Promise.reject(failure);
      const at = copy(data, 0);
      if (at === data.byteLength && filled < WRITE_BATCH_BYTES) return undefined;
      return writeRest(data, at);
    },
    drain() {
      return new Promise((resolve, reject) => {
        /** Runs now and again each time a write ended, until none is in flight or left. */
        const go = (): void => {
          if (failed) reject(failure);
          else if (writing > 0) waiting.push(go);
          else if (filled === 0) resolve();
          else {
            submit();
            waiting.push(go);
          }
        };
        go();
      });
    },
    release() {
      released = true;
      if (filling !== undefined) giveIoBuffer(filling);
      filling = undefined;
      filled = 0;
    },
  };
}
