import { createHash, type Hash, timingSafeEqual } from "node:crypto";
import { constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { HandlerContext } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import { crc32c } from "@nearwire/frame";
import { hashFileRange } from "../hash-file-range.js";
import { READ_BLOCK_BYTES } from "../io-buffers.js";
import { localFsError } from "../local-fs-error.js";
import { checkName, splitName } from "../name.js";
import { decodedBytes, plainBytes } from "../plain-bytes.js";
import type { DownloadChunk, DownloadRequest } from "../service.js";
import { changedError, checkUnchanged, settledVersion } from "./file-version.js";
import { openDirIn, openFileIn } from "./root-dir.js";
import type { ServedRoot } from "./served-root.js";

const EMPTY = new Uint8Array(0);

/**
 * The `download` handler: streams one version of the file from the client's offset when the
 * client's prefix SHA-256 matches the file's (else from 0), one block read ahead; the last
 * chunk carries the SHA-256 of the whole file and goes out only if the file did not change.
 */
export async function* download(
  served: ServedRoot,
  req: DownloadRequest,
  ctx: HandlerContext,
): AsyncIterable<DownloadChunk> {
  const name = checkName(req.name);
  const chunkBytes = req.chunkBytes > 0 ? req.chunkBytes : served.limits.downloadChunkBytes;
  if (chunkBytes > served.limits.maxChunkBytes)
    throw new NearwireError(
      Code.InvalidArgument,
      `chunkBytes ${chunkBytes} > maxChunkBytes ${served.limits.maxChunkBytes}`,
    );
  const handle = await openForReading(served, name);
  let next: Promise<Uint8Array> | undefined;
  try {
    // The version read: a change of it during the read (size, mtime, ctime) fails the call.
    const version = await settledVersion(handle);
    if (!version.isFile())
      throw new NearwireError(Code.InvalidArgument, `${JSON.stringify(name)} is not a file`);
    const size = Number(version.size);
    let { offset, hash } = await resumePoint(handle, size, req);
    // Whole blocks of chunks are read into two buffers of this call, one read ahead: the next
    // block comes from disk while this one's chunks go out. A buffer is read into again only
    // after every chunk of it was sent, and the engine encodes (copies) a yielded message
    // before it asks for the next one: no buffer is made per chunk.
    const blockBytes = chunkBytes * Math.max(1, Math.floor(READ_BLOCK_BYTES / chunkBytes));
    const blocks = [Buffer.allocUnsafeSlow(blockBytes), Buffer.allocUnsafeSlow(blockBytes)];
    let turn = 0;
    const read = (pos: number) => {
      const block = blocks[turn] as Buffer;
      turn ^= 1;
      const p = readBlock(handle, block, pos, Math.min(blockBytes, size - pos));
      p.catch(() => {}); // awaited later; a failure meanwhile is not unhandled
      return p;
    };
    next = read(offset);
    for (;;) {
      const block = await next;
      const end = offset + block.byteLength;
      if (block.byteLength === 0 && end < size) throw changedError(name); // it shrank
      const last = end >= size;
      if (!last) next = read(end);
      // Every byte sent (and hashed) is of one version, or the last chunk never goes out.
      else await checkUnchanged(handle, version, name);
      hash.update(block);
      let at = 0;
      do {
        const data = block.subarray(at, Math.min(at + chunkBytes, block.byteLength));
        const lastChunk = last && at + data.byteLength === block.byteLength;
        ctx.signal.throwIfAborted();
        yield {
          offsetBytes: offset + at,
          data,
          crc32c: crc32c(data),
          sizeBytes: size,
          last: lastChunk,
          sha256: lastChunk ? plainBytes(hash.digest()) : EMPTY,
        };
        at += data.byteLength;
      } while (at < block.byteLength);
      offset = end;
      if (last) return;
    }
  } catch (err) {
    throw localFsError(err, `download of ${JSON.stringify(name)}`);
  } finally {
    await next?.catch(() => {});
    await handle.close().catch(() => {});
  }
}

/**
 * Where to start: the client's offset, with the hash of the file's bytes before it, when the
 * client's prefix SHA-256 matches them; else 0.
 */
async function resumePoint(
  handle: FileHandle,
  size: number,
  req: DownloadRequest,
): Promise<{ offset: number; hash: Hash }> {
  const offset = req.offsetBytes;
  if (offset <= 0) return { offset, hash: createHash("sha256") };
  if (offset > size) return { offset: 0, hash: createHash("sha256") };
  const prefix = decodedBytes(req.prefixSha256);
  const hash = await hashFileRange(handle, 0, offset);
  const ok = prefix.byteLength === 32 && timingSafeEqual(hash.copy().digest(), prefix);
  return ok ? { offset, hash } : { offset: 0, hash: createHash("sha256") };
}

/** Opens `name` for reading, following no symlink (O_NONBLOCK: a FIFO cannot block it). */
async function openForReading(served: ServedRoot, name: string): Promise<FileHandle> {
  const target = splitName(name);
  const root = await served.dirs.acquire();
  try {
    const dir = await openDirIn(root, target.dir, name);
    try {
      return await openFileIn(dir, target.base, constants.O_RDONLY | constants.O_NONBLOCK, name);
    } finally {
      await dir.close();
    }
  } finally {
    served.dirs.release();
  }
}

/** Reads `bytes` at `pos` into `block` (fewer at the end of the file); a view of what was read. */
async function readBlock(
  handle: FileHandle,
  block: Buffer,
  pos: number,
  bytes: number,
): Promise<Uint8Array> {
  let got = 0;
  while (got < bytes) {
    const { bytesRead } = await handle.read(block, got, bytes - got, pos + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return new Uint8Array(block.buffer, block.byteOffset, got);
}
