import { createHash, type Hash, timingSafeEqual } from "node:crypto";
import { type BigIntStats, constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { HandlerContext } from "@nearwire/core";
import { Code, NearwireError, nextNow, whenReady } from "@nearwire/core";
import { crc32c } from "@nearwire/frame";
import { readUpTo } from "../fd-io.js";
import { hashFileRange } from "../hash-file-range.js";
import { giveIoBuffer, IO_BUFFER_BYTES, READ_BLOCK_BYTES, takeIoBuffer } from "../io-buffers.js";
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
export function download(
  served: ServedRoot,
  req: DownloadRequest,
  ctx: HandlerContext,
): AsyncIterable<DownloadChunk> {
  return new DownloadChunks(served, req, ctx);
}

const DONE: IteratorResult<DownloadChunk> = { done: true, value: undefined };

/** A download's file once open: the version read, and the hash of what was sent so far. */
interface OpenFile {
  name: string;
  handle: FileHandle;
  version: BigIntStats;
  size: number;
  hash: Hash;
  chunkBytes: number;
}

/**
 * A download's chunks, read straight from the file: the one loop of a download's server, with
 * no generator. Whole blocks of chunks are read into two buffers, one read ahead: the next
 * block comes from disk while this one's chunks go out. A buffer is read into again only after
 * every chunk of it was sent, and the engine encodes (copies) a message before it asks for the
 * next one: no buffer is made per chunk. The two are the process's pooled I/O buffers (fresh
 * ones only for chunks over 512 KiB), given back once the file is closed, so a download makes
 * no buffer per call either (two fresh 256 KiB blocks before). Core's pump takes the chunks of
 * a block already read, and the next block once it is in, through `[nextNow]()`, with no
 * promise; `next()` opens the file or waits for a read (and, before the file's last block,
 * checks that the file did not change).
 */
class DownloadChunks implements AsyncIterableIterator<DownloadChunk> {
  private file: OpenFile | undefined;
  /** The two read blocks, and the pooled I/O buffers they lie in (given back on close). */
  private readonly blocks: Uint8Array[] = [];
  private pooled: Uint8Array[] = [];
  private turn = 0;
  /** The block whose chunks go out, its file offset, where its next chunk starts. */
  private block: Uint8Array = EMPTY;
  private blockAt = 0;
  private at = 0;
  /** No chunk of `block` went out yet (an empty last block still sends one). */
  private fresh = false;
  /** `block` is the file's last. */
  private last = false;
  /** A read ahead is in flight; where it reads from, and up to where. */
  private reading = false;
  private readingAt = 0;
  private readingEnd = 0;
  /** The block the read ahead filled, once it settled: `[nextNow]()` can take it then. */
  private readBlock: Uint8Array | undefined;
  private readError: unknown;
  /** What waits for the read in flight to settle (`whenReady`'s wake, `advance`, `close`). */
  private afterRead: (() => void)[] = [];
  private ended = false;
  private closed: Promise<void> | undefined;

  constructor(
    private readonly served: ServedRoot,
    private readonly req: DownloadRequest,
    private readonly ctx: HandlerContext,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The next chunk of the block at hand; undefined when `next()` must open, read or close. */
  [nextNow](): IteratorResult<DownloadChunk> | undefined {
    const f = this.file;
    if (this.ended || f === undefined) return this.ended ? DONE : undefined;
    if (!(this.fresh || this.at < this.block.byteLength)) {
      // Every chunk of the block went out: take the one read ahead if it is in, unless it is
      // the file's last (its version check is a stat: next() does it).
      const ready = this.readBlock;
      if (this.last || ready === undefined || this.readingAt + ready.byteLength >= f.size)
        return undefined;
      try {
        this.take(f, ready);
      } catch (err) {
        void this.close();
        throw localFsError(err, `download of ${JSON.stringify(f.name)}`);
      }
    }
    try {
      this.ctx.signal.throwIfAborted();
    } catch (err) {
      void this.close();
      throw localFsError(err, `download of ${JSON.stringify(f.name)}`);
    }
    const start = this.at;
    const data = this.block.subarray(start, Math.min(start + f.chunkBytes, this.block.byteLength));
    this.at += data.byteLength;
    this.fresh = false;
    const lastChunk = this.last && this.at === this.block.byteLength;
    return {
      done: false,
      value: {
        offsetBytes: this.blockAt + start,
        data,
        crc32c: crc32c(data),
        sizeBytes: f.size,
        last: lastChunk,
        sha256: lastChunk ? plainBytes(f.hash.digest()) : EMPTY,
      },
    };
  }

  /**
   * Waits for the read ahead with a callback (see core's `whenReady`) when `[nextNow]()` will
   * take its block; false (`next()` then) for what only `next()` does: open the file, check the
   * version before the last block, close.
   */
  [whenReady](wake: () => void): boolean {
    const f = this.file;
    if (f === undefined || this.ended || this.last || this.fresh || this.at < this.block.byteLength)
      return false;
    if (!this.reading || this.readingEnd >= f.size) return false;
    this.afterRead.push(wake);
    return true;
  }

  async next(): Promise<IteratorResult<DownloadChunk>> {
    for (;;) {
      const now = this[nextNow]();
      if (now !== undefined) return now;
      if (this.file === undefined) await this.open();
      else if (this.last) {
        await this.close(); // the last chunk went out
        return DONE;
      } else {
        try {
          await this.advance(this.file);
        } catch (err) {
          await this.close();
          throw localFsError(err, `download of ${JSON.stringify(this.file.name)}`);
        }
      }
    }
  }

  async return(): Promise<IteratorResult<DownloadChunk>> {
    await this.close();
    return DONE;
  }

  /** Opens the file, settles its version and where to start, and reads the first block. */
  private async open(): Promise<void> {
    const { served, req } = this;
    const name = checkName(req.name);
    const chunkBytes = req.chunkBytes > 0 ? req.chunkBytes : served.limits.downloadChunkBytes;
    if (chunkBytes > served.limits.maxChunkBytes)
      throw new NearwireError(
        Code.InvalidArgument,
        `chunkBytes ${chunkBytes} > maxChunkBytes ${served.limits.maxChunkBytes}`,
      );
    const handle = await openForReading(served, name);
    try {
      if (this.ended) throw new NearwireError(Code.Canceled, "download ended");
      // The version read: a change of it during the read (size, mtime, ctime) fails the call.
      const version = await settledVersion(handle);
      if (!version.isFile())
        throw new NearwireError(Code.InvalidArgument, `${JSON.stringify(name)} is not a file`);
      const size = Number(version.size);
      const { offset, hash } = await resumePoint(handle, size, req);
      const file = { name, handle, version, size, hash, chunkBytes };
      this.file = file;
      const blockBytes = chunkBytes * Math.max(1, Math.floor(READ_BLOCK_BYTES / chunkBytes));
      for (let i = 0; i < 2; i++) {
        if (blockBytes > IO_BUFFER_BYTES) {
          this.blocks.push(new Uint8Array(blockBytes));
          continue;
        }
        const io = takeIoBuffer();
        this.pooled.push(io);
        this.blocks.push(io.subarray(0, blockBytes));
      }
      this.readAhead(offset);
      await this.advance(file);
    } catch (err) {
      await this.close(); // closes the handle once `file` holds it
      if (this.file === undefined) await handle.close().catch(() => {});
      throw localFsError(err, `download of ${JSON.stringify(name)}`);
    }
  }

  /** Starts reading the block at `pos` into the buffer not being sent. */
  private readAhead(pos: number): void {
    const f = this.file as OpenFile;
    if (this.ended) return; // closed: its buffers may be back in the pool
    const block = this.blocks[this.turn] as Uint8Array;
    this.turn ^= 1;
    const bytes = Math.min(block.byteLength, f.size - pos);
    this.reading = true;
    this.readingAt = pos;
    this.readingEnd = pos + bytes;
    // Settles into `readBlock`, or `readError` (thrown by the `advance` that waits for it).
    readUpTo(f.handle.fd, block, pos, bytes, (err, n) => {
      this.reading = false;
      if (err !== null) this.readError = err;
      else this.readBlock = new Uint8Array(block.buffer, block.byteOffset, n);
      const then = this.afterRead;
      this.afterRead = [];
      for (const go of then) go();
    });
  }

  /** Resolves once no read is in flight. */
  private readSettled(): Promise<void> | undefined {
    if (!this.reading) return undefined;
    return new Promise((resolve) => this.afterRead.push(resolve));
  }

  /** Takes the block read ahead (every chunk of the one before went out) and reads the next. */
  private async advance(f: OpenFile): Promise<void> {
    await this.readSettled();
    if (this.readError !== undefined) throw this.readError;
    const block = this.readBlock;
    if (block === undefined || this.ended) return; // [nextNow]() took it, or closed
    // Every byte sent (and hashed) is of one version, or the last chunk never goes out.
    if (this.readingAt + block.byteLength >= f.size)
      await checkUnchanged(f.handle, f.version, f.name);
    this.take(f, block);
  }

  /** Makes `block`, read ahead, the one at hand, and starts reading the next unless it is the last. */
  private take(f: OpenFile, block: Uint8Array): void {
    const at = this.readingAt;
    const end = at + block.byteLength;
    if (block.byteLength === 0 && end < f.size) throw changedError(f.name); // it shrank
    const last = end >= f.size;
    this.readBlock = undefined;
    if (!last) this.readAhead(end);
    f.hash.update(block);
    this.block = block;
    this.blockAt = at;
    this.at = 0;
    this.fresh = true;
    this.last = last;
  }

  /** Ends the download: the file is closed once a read in flight has settled. */
  private close(): Promise<void> {
    this.ended = true;
    this.closed ??= (async () => {
      await this.readSettled();
      // No read is in flight nor starts again (ended), and every chunk sent was encoded
      // (copied) when it was sent: the blocks are free.
      for (const io of this.pooled) giveIoBuffer(io);
      this.pooled = [];
      await this.file?.handle.close().catch(() => {});
    })();
    return this.closed;
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
