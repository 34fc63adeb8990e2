import { once } from "node:events";

/** Bytes of chunks a {@link lentChunkWriter} has in its Writable at most (and in its pool). */
export const LENT_CHUNK_BYTES = 1024 * 1024;

/**
 * Writes a download's chunks into a Writable from a few reused buffers (`lendChunks`): each
 * chunk is copied into a free buffer of the pool, which the Writable is given and which is free
 * again once the write's callback has run. At most {@link LENT_CHUNK_BYTES} (and at least two
 * chunks) are out at once; past that `write` waits for a callback. The received message is done
 * with once copied, so the call lends its messages too: no buffer is made per chunk.
 */
export interface LentChunkWriter {
  /** Copies `data` into a free buffer and writes it; a promise when it has to wait first. */
  write(data: Uint8Array): Promise<void> | undefined;
  /** Waits until the Writable has called back for every chunk (rejects with a write error). */
  drain(): Promise<void>;
}

/** A {@link LentChunkWriter} into `dest`. */
export function lentChunkWriter(dest: NodeJS.WritableStream): LentChunkWriter {
  const free: Buffer[] = [];
  let outBytes = 0;
  let outCount = 0;
  let failure: Error | undefined;
  /** Resolves the wait for a callback (a free buffer, or all of them back). */
  let wake: (() => void) | undefined;

  const done = (buf: Buffer) => (err?: Error | null) => {
    outBytes -= buf.byteLength;
    outCount--;
    if (err != null) failure ??= err;
    else free.push(buf);
    const w = wake;
    wake = undefined;
    w?.();
  };
  const waitCallback = async (): Promise<void> => {
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    if (failure !== undefined) throw failure;
  };
  const send = (data: Uint8Array): Promise<void> | undefined => {
    let buf = free.pop();
    if (buf === undefined || buf.byteLength < data.byteLength)
      buf = Buffer.allocUnsafeSlow(data.byteLength);
    buf.set(data);
    const view = buf.byteLength === data.byteLength ? buf : buf.subarray(0, data.byteLength);
    outBytes += buf.byteLength;
    outCount++;
    if (!dest.write(view, done(buf))) return once(dest, "drain").then(() => {});
    return undefined;
  };
  const full = (n: number) => outCount >= 2 && outBytes + n > LENT_CHUNK_BYTES;

  return {
    write(data) {
      if (failure !== undefined) return Promise.reject(failure);
      if (!full(data.byteLength)) return send(data);
      return (async () => {
        while (full(data.byteLength)) await waitCallback();
        await send(data);
      })();
    },
    async drain() {
      while (outCount > 0) await waitCallback();
      if (failure !== undefined) throw failure;
    },
  };
}
