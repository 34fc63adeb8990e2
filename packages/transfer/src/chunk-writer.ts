import { giveIoBuffer, IO_BUFFER_BYTES, takeIoBuffer } from "./io-buffers.js";

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
 * be lent back). At most two batches per transfer: one being written, one filling.
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

/** Where a {@link ChunkWriter}'s batches go: one write at a time, each after the last. */
export interface BatchSink {
  write(batch: Uint8Array): Promise<void>;
}

/** A {@link ChunkWriter} over `sink` (the server's partial upload does its checkpoints there). */
export function chunkWriter(sink: BatchSink): ChunkWriter {
  let filling: Uint8Array | undefined;
  let filled = 0;
  /** The write in flight, if any. */
  let writing: Promise<void> | undefined;
  let failure: unknown;
  let failed = false;
  let released = false;

  const submit = (): void => {
    const batch = filling as Uint8Array;
    const n = filled;
    filling = undefined;
    filled = 0;
    writing = sink.write(batch.subarray(0, n)).then(
      () => {
        writing = undefined;
        if (released) giveIoBuffer(batch);
        else if (filling === undefined) filling = batch;
        else giveIoBuffer(batch);
      },
      (err: unknown) => {
        writing = undefined;
        failed = true;
        failure = err;
        giveIoBuffer(batch); // the write is over: the batch is free again
      },
    );
  };
  /** Copies `data[from …]` until the batch is full and a write is in flight; returns where it stopped. */
  const copy = (data: Uint8Array, from: number): number => {
    let at = from;
    while (at < data.byteLength) {
      if (filling === undefined) filling = takeIoBuffer();
      const n = Math.min(filling.byteLength - filled, data.byteLength - at);
      filling.set(n === data.byteLength ? data : data.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === filling.byteLength) {
        if (writing !== undefined) return at;
        submit();
      }
    }
    return at;
  };
  const writeRest = async (data: Uint8Array, from: number): Promise<void> => {
    let at = from;
    while (at < data.byteLength || filled === WRITE_BATCH_BYTES) {
      await writing;
      if (failed) throw failure;
      if (filled === WRITE_BATCH_BYTES) submit();
      at = copy(data, at);
    }
  };
  return {
    write(data) {
      if (failed) return Promise.reject(failure);
      const at = copy(data, 0);
      if (at === data.byteLength && filled < WRITE_BATCH_BYTES) return undefined;
      return writeRest(data, at);
    },
    async drain() {
      for (;;) {
        await writing;
        if (failed) throw failure;
        if (filled === 0) return;
        submit();
      }
    },
    release() {
      released = true;
      if (filling !== undefined) giveIoBuffer(filling);
      filling = undefined;
      filled = 0;
    },
  };
}
