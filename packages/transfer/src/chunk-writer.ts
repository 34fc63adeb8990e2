/**
 * Size of a write batch: received chunks are copied into one and it is written to the file
 * when full (or when the transfer drains). Measured here (`FileHandle.write` to ext4, CPU per
 * GiB): 64 KiB writes 0.80 s, 256 KiB 0.32 s, 512 KiB 0.23 s, 1 MiB 0.19 s; 512 KiB costs
 * little more than 1 MiB and holds half the memory (two batches per transfer, ten transfers at
 * once: 10 MiB). The copy (one per byte, from the received frame) lets the frame go at once.
 */
export const WRITE_BATCH_BYTES = 512 * 1024;

/** Write batches kept for reuse while the process is idle (8 MiB). */
const IDLE_POOL_MAX = 16;
/** How long the pool keeps more than {@link IDLE_POOL_MAX} batches after they were last needed. */
const TRIM_AFTER_MS = 2000;

/**
 * Write batches of the process's transfers: kept for reuse up to as many as were in use at once
 * lately, so a steady load (ten uploads at a time, upload after upload) takes every batch from
 * the pool instead of allocating and dropping 1 MiB per upload, which made the garbage collector
 * run full collections for external memory; two seconds after the peak has passed, the pool
 * goes back to {@link IDLE_POOL_MAX}.
 */
const pool: Uint8Array[] = [];
let inUse = 0;
/** The most batches in use at once in the current period, and in the one before. */
let peak = 0;
let lastPeak = 0;
let trimTimer: NodeJS.Timeout | undefined;

function takeBatch(): Uint8Array {
  inUse++;
  if (inUse > peak) peak = inUse;
  return pool.pop() ?? new Uint8Array(WRITE_BATCH_BYTES);
}

function releaseBatch(b: Uint8Array): void {
  inUse--;
  if (inUse + pool.length < Math.max(IDLE_POOL_MAX, peak, lastPeak)) pool.push(b);
  if (pool.length > IDLE_POOL_MAX && trimTimer === undefined) {
    trimTimer = setTimeout(trim, TRIM_AFTER_MS);
    trimTimer.unref();
  }
}

/** Drops the batches past what the last two periods needed (at least the idle count). */
function trim(): void {
  trimTimer = undefined;
  const keep = Math.max(IDLE_POOL_MAX, peak, lastPeak) - inUse;
  if (pool.length > keep) pool.length = Math.max(keep, 0);
  lastPeak = peak;
  peak = inUse;
  if (pool.length > IDLE_POOL_MAX) {
    trimTimer = setTimeout(trim, TRIM_AFTER_MS);
    trimTimer.unref();
  }
}

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
        if (released) releaseBatch(batch);
        else if (filling === undefined) filling = batch;
        else releaseBatch(batch);
      },
      (err: unknown) => {
        writing = undefined;
        failed = true;
        failure = err;
        releaseBatch(batch); // the write is over: the batch is free again
      },
    );
  };
  /** Copies `data[from …]` until the batch is full and a write is in flight; returns where it stopped. */
  const copy = (data: Uint8Array, from: number): number => {
    let at = from;
    while (at < data.byteLength) {
      if (filling === undefined) filling = takeBatch();
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
      if (filling !== undefined) releaseBatch(filling);
      filling = undefined;
      filled = 0;
    },
  };
}
