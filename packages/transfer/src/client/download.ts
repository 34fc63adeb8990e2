import { createHash, type Hash, timingSafeEqual } from "node:crypto";
import { once } from "node:events";
import { constants, WriteStream } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { Socket } from "node:net";
import { dirname } from "node:path";
import { Transform } from "node:stream";
import type { CallOptions, Client } from "@nearwire/core";
import { Code, forEachMessage, NearwireError } from "@nearwire/core";
import { crc32c } from "@nearwire/frame";
import { chunkWriter } from "../chunk-writer.js";
import { FileWrites } from "../file-writes.js";
import { hashFileRange } from "../hash-file-range.js";
import { DOWNLOAD_PART_SUFFIX } from "../limits.js";
import { localFsError } from "../local-fs-error.js";
import { decodedBytes, plainBytes } from "../plain-bytes.js";
import type { DownloadChunk, DownloadRequest, TransferServiceDefinition } from "../service.js";
import { fsyncDir } from "./fsync-dir.js";
import { lentChunkWriter } from "./lent-chunks.js";
import { type AttemptResult, callOptions, type TransferCallOptions } from "./options.js";

const EMPTY = new Uint8Array(0);

/**
 * One attempt of a download into `dest`: bytes go to `dest + DOWNLOAD_PART_SUFFIX`, whose
 * content (size and SHA-256) is sent as the prefix to resume from; the file is fsync'ed and
 * renamed to `dest` once the whole file's SHA-256 matches the server's. A failure keeps a part
 * file that holds bytes (the next attempt resumes from it) and removes an empty one (a missing
 * name, a failure before the first byte). Local file errors are {@link localFsError}s.
 */
export async function downloadToPath(
  rpc: Client<TransferServiceDefinition>,
  name: string,
  dest: string,
  chunkBytes: number,
  opts: TransferCallOptions,
): Promise<AttemptResult> {
  const part = dest + DOWNLOAD_PART_SUFFIX;
  const context = `download destination ${JSON.stringify(dest)}`;
  const fh = await open(part, constants.O_RDWR | constants.O_CREAT, 0o600).catch((err) => {
    throw localFsError(err, context);
  });
  let closed = false;
  let holdsBytes = false;
  let done = false;
  /** The bytes are known bad: nothing more is written, the part file goes. */
  let discard = false;
  // Chunks are copied into write batches (512 KiB writes, one in flight while the next fills,
  // two past the page cache): a chunk's receive buffer is done with once copied, so the engine
  // reuses it (lendMessages).
  let filePos = 0;
  // Never rejects: where O_DIRECT is refused, every write goes through the page cache.
  const writes = await FileWrites.open(fh.fd, opts.directWrites ?? true);
  const writer = chunkWriter({
    write: (batch, done) => {
      const at = filePos;
      filePos += batch.byteLength;
      if (batch.byteLength > 0) holdsBytes = true;
      writes.write(batch, at, done);
    },
    writesInFlight: writes.writesInFlight,
  });
  try {
    const have = (await fh.stat()).size;
    holdsBytes = have > 0;
    filePos = have;
    const hash = await hashFileRange(fh, 0, have);
    const req: DownloadRequest = {
      name,
      offsetBytes: have,
      prefixSha256: have > 0 ? plainBytes(hash.copy().digest()) : EMPTY,
      chunkBytes,
    };
    const got = await verifiedChunks(rpc.download(req, lendingCallOptions(opts)), {
      name,
      offsetBytes: have,
      hash,
      ...(opts.onProgress === undefined ? {} : { onProgress: opts.onProgress }),
      // The server's file differs from our prefix: start over.
      restart: async () => {
        await writer.drain();
        await fh.truncate(0);
        filePos = 0;
        holdsBytes = false;
      },
      write: (data) => writer.write(data),
    });
    await writer.drain();
    if (!got.matches) {
      discard = true; // which chunk is bad cannot be told: the next attempt starts over
      holdsBytes = false;
      throw digestMismatch(got.sizeBytes);
    }
    await fh.sync();
    closed = true;
    await writes.close();
    await fh.close();
    await rename(part, dest);
    done = true;
    await fsyncDir(dirname(dest));
    return {
      name,
      sizeBytes: got.sizeBytes,
      sha256: got.digest.toString("hex"),
      resumedFromBytes: got.resumedFromBytes,
    };
  } catch (err) {
    throw localFsError(err, context);
  } finally {
    // What arrived (each chunk checked) is kept for the next attempt to resume from.
    if (!closed && !discard) await writer.drain().catch(() => {});
    writer.release();
    if (!closed) {
      await writes.close();
      await fh.close().catch(() => {});
    }
    if (!done && !holdsBytes) await rm(part, { force: true }).catch(() => {});
  }
}

/**
 * One attempt of a download into a Writable (from byte 0; the stream is not ended). With
 * `lendChunks` (the default for a file stream or a socket) the Writable is given reused buffers
 * (see {@link lentChunkWriter}) and the attempt ends once it has called back for every chunk.
 */
export async function downloadToStream(
  rpc: Client<TransferServiceDefinition>,
  name: string,
  dest: NodeJS.WritableStream,
  chunkBytes: number,
  opts: TransferCallOptions,
): Promise<AttemptResult> {
  const req: DownloadRequest = { name, offsetBytes: 0, prefixSha256: EMPTY, chunkBytes };
  if (opts.lendChunks === true && dest instanceof Transform)
    throw new NearwireError(
      Code.InvalidArgument,
      "lendChunks: a Transform or PassThrough keeps the chunks it is given past its write callback; leave lendChunks off for it",
    );
  const lent = (opts.lendChunks ?? donePerCallback(dest)) ? lentChunkWriter(dest) : undefined;
  // Not lent: each chunk's bytes are this side's to keep, so the stream takes them as they
  // are (a view, no copy), as a Writable owns what it is given.
  const got = await verifiedChunks(
    rpc.download(req, lent === undefined ? callOptions(opts) : lendingCallOptions(opts)),
    {
      name,
      offsetBytes: 0,
      hash: createHash("sha256"),
      ...(opts.onProgress === undefined ? {} : { onProgress: opts.onProgress }),
      write:
        lent === undefined
          ? (data) => {
              const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
              if (!dest.write(view)) return once(dest, "drain").then(() => {});
              return undefined;
            }
          : (data) => lent.write(data),
    },
  );
  await lent?.drain();
  if (!got.matches) throw digestMismatch(got.sizeBytes);
  return {
    name,
    sizeBytes: got.sizeBytes,
    sha256: got.digest.toString("hex"),
    resumedFromBytes: 0,
  };
}

/**
 * Writables known to be done with a chunk once they call back: a file stream (the bytes are in
 * the file) and a socket (in the kernel). `lendChunks` defaults to true for these.
 */
function donePerCallback(dest: NodeJS.WritableStream): boolean {
  return dest instanceof WriteStream || dest instanceof Socket;
}

/** Where a download's chunks go, and where it starts. */
interface DownloadSink {
  name: string;
  /** Bytes the destination already has; `hash` is their SHA-256 so far. */
  offsetBytes: number;
  hash: Hash;
  onProgress?: TransferCallOptions["onProgress"];
  /** Drops the bytes the destination has (the server restarted at 0); none: a restart fails. */
  restart?: () => Promise<void>;
  /**
   * Takes a checked chunk; a promise when the caller has to wait. When the call lends its
   * messages, the sink is done with the chunk once this returns or its promise settles (the
   * engine reuses its buffer for the next message).
   */
  write(data: Uint8Array): Promise<void> | undefined;
}

/** What a finished download stream delivered. */
interface Delivered {
  sizeBytes: number;
  digest: Buffer;
  /** The size and SHA-256 match the server's last chunk. */
  matches: boolean;
  resumedFromBytes: number;
}

/**
 * The one receive loop of both download paths: checks each chunk's offset and CRC-32C, hashes
 * it and hands it to `sink`, until the last chunk, whose size and SHA-256 are compared (the
 * caller decides what a mismatch drops). A stream that ends before the last chunk is
 * UNAVAILABLE. The chunks are taken by `forEachMessage` (no promise per chunk while the loop
 * keeps up); the stream is closed (`return()`) on an early exit, as `for await` does.
 */
async function verifiedChunks(
  chunks: AsyncIterable<DownloadChunk>,
  sink: DownloadSink,
): Promise<Delivered> {
  const { name } = sink;
  let hash = sink.hash;
  let pos = sink.offsetBytes;
  let resumedFromBytes = sink.offsetBytes;
  let delivered: Delivered | undefined;
  /** The chunk is written: progress, and true once it was the last. */
  const advance = (c: DownloadChunk, n: number): boolean => {
    pos += n;
    sink.onProgress?.({ name, transferredBytes: pos, totalBytes: c.sizeBytes, resumedFromBytes });
    if (!c.last) return false;
    const digest = hash.digest();
    const matches = pos === c.sizeBytes && sameDigest(digest, decodedBytes(c.sha256));
    delivered = { sizeBytes: pos, digest, matches, resumedFromBytes };
    return true;
  };
  /** A chunk at the expected offset: checked, hashed and written. */
  const deliver = (c: DownloadChunk, data: Uint8Array): boolean | Promise<boolean> => {
    if (crc32c(data) !== c.crc32c >>> 0)
      throw new NearwireError(Code.DataLoss, `chunk at ${pos} B: CRC-32C mismatch`, {
        reason: "crc-mismatch",
      });
    hash.update(data);
    const wait = sink.write(data);
    if (wait === undefined) return advance(c, data.byteLength);
    return wait.then(() => advance(c, data.byteLength));
  };
  const take = (c: DownloadChunk): boolean | Promise<boolean> => {
    const data = decodedBytes(c.data);
    if (c.offsetBytes === pos) return deliver(c, data);
    if (c.offsetBytes !== 0 || sink.restart === undefined)
      throw new NearwireError(Code.Internal, `chunk at ${c.offsetBytes} B, expected ${pos} B`);
    // The server's file differs from our prefix: it starts over at 0.
    return sink.restart().then(() => {
      hash = createHash("sha256");
      pos = 0;
      resumedFromBytes = 0;
      return deliver(c, data);
    });
  };
  const it = chunks[Symbol.asyncIterator]();
  let ended = false;
  try {
    ended = !(await forEachMessage(it, take));
  } finally {
    // A stream that failed or ended has nothing to close; closing it again is a no-op.
    if (!ended) await it.return?.();
  }
  if (delivered === undefined)
    throw new NearwireError(Code.Unavailable, `download of ${JSON.stringify(name)} ended early`);
  return delivered;
}

/** The call options of a download: its chunks' buffers are lent back (see DownloadSink.write). */
function lendingCallOptions(opts: TransferCallOptions): CallOptions {
  return { ...callOptions(opts), lendMessages: true };
}

function digestMismatch(sizeBytes: number): NearwireError {
  return new NearwireError(Code.DataLoss, `SHA-256 of ${sizeBytes} B does not match the server's`);
}

function sameDigest(a: Uint8Array, b: Uint8Array | undefined): boolean {
  return b !== undefined && a.byteLength === b.byteLength && timingSafeEqual(a, b);
}
