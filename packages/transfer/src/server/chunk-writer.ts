import type { PartialUpload } from "./partial-upload.js";

/**
 * Bytes of received chunks an upload may hold while its file write is in flight; above this
 * the handler stops taking messages until the writes caught up (then stream credit holds the
 * client). 256 KiB = 4 chunks of 64 KiB: it batches the writes while adding little to what
 * the call's credit window already lets in (with 1 MiB, ten concurrent uploads grew the server's
 * RSS by 75–102 MiB instead of 55–87 MiB).
 */
export const WRITE_QUEUE_BYTES = 256 * 1024;

/**
 * Writes an upload's chunks behind the receive loop: chunks that arrive while a write is in
 * flight are queued and written together with one `writev`, so the handler keeps taking
 * messages (and granting credit) instead of waiting for the disk chunk by chunk.
 */
export interface ChunkWriter {
  /** Queues `data` (after the bytes already queued) and starts writing if idle. */
  enqueue(data: Uint8Array): void;
  /** Bytes queued and not yet handed to a write. */
  readonly queuedBytes: number;
  /** Resolves once everything queued is written; rejects with the first write error. */
  drain(): Promise<void>;
  /** Throws the first write error, if one happened. */
  throwIfFailed(): void;
}

/** A {@link ChunkWriter} over `partial` (its `writeMany` does the checkpoints). */
export function chunkWriter(partial: PartialUpload): ChunkWriter {
  let queue: Uint8Array[] = [];
  let queuedBytes = 0;
  let flushing = false;
  let failure: unknown;
  let failed = false;
  let writing: Promise<void> = Promise.resolve();
  const flush = async () => {
    try {
      while (queue.length > 0 && !failed) {
        const batch = queue;
        queue = [];
        queuedBytes = 0;
        await partial.writeMany(batch);
      }
    } catch (err) {
      failed = true;
      failure = err;
    } finally {
      flushing = false;
    }
  };
  return {
    enqueue(data) {
      queue.push(data);
      queuedBytes += data.byteLength;
      if (!flushing && !failed) {
        flushing = true;
        writing = flush();
      }
    },
    get queuedBytes() {
      return queuedBytes;
    },
    async drain() {
      while (flushing) await writing;
      if (failed) throw failure;
    },
    throwIfFailed() {
      if (failed) throw failure;
    },
  };
}
