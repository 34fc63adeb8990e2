import { createHash, type Hash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";

const READ_BYTES = 1 << 20;

/**
 * SHA-256 of bytes `[start, end)` of an open file, read 1 MiB at a time (memory stays flat);
 * returns the running hash so more bytes can follow.
 */
export async function hashFileRange(handle: FileHandle, start: number, end: number): Promise<Hash> {
  const hash = createHash("sha256");
  const buf = Buffer.allocUnsafe(Math.min(READ_BYTES, Math.max(end - start, 1)));
  let pos = start;
  while (pos < end) {
    const { bytesRead } = await handle.read(buf, 0, Math.min(buf.byteLength, end - pos), pos);
    if (bytesRead === 0) break;
    hash.update(buf.subarray(0, bytesRead));
    pos += bytesRead;
  }
  return hash;
}
