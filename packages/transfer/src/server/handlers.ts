import { createHash, timingSafeEqual } from "node:crypto";
import { constants, realpathSync, statSync } from "node:fs";
import { type FileHandle, rename } from "node:fs/promises";
import type { HandlerContext, ServiceImpl } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import { crc32c } from "@nearwire/frame";
import { hashFileRange } from "../hash-file-range.js";
import { checkName, STAGING_DIR_NAME } from "../name.js";
import { decodedBytes, plainBytes } from "../plain-bytes.js";
import type {
  DownloadChunk,
  DownloadRequest,
  StatusReply,
  TransferServiceDefinition,
  UploadChunk,
  UploadReply,
} from "../service.js";
import { type ChunkWriter, chunkWriter, WRITE_QUEUE_BYTES } from "./chunk-writer.js";
import { changedError, checkUnchanged, settledVersion } from "./file-version.js";
import {
  openPartialUpload,
  type PartialUpload,
  partialPaths,
  readPartialState,
  removePartial,
} from "./partial-upload.js";
import {
  lstatNoSymlink,
  type OpenDir,
  openDirIn,
  openFileIn,
  openRoot,
  pathIn,
} from "./root-dir.js";
import { isLocked, lockUpload, type UploadLock } from "./upload-lock.js";

/** Default bytes per chunk (uploads and downloads). */
export const DEFAULT_CHUNK_BYTES = 64 * 1024;
/** Default checkpoint interval of a partial upload (fdatasync + confirmed offset). */
export const DEFAULT_SYNC_EVERY_BYTES = 8 * 1024 * 1024;
/** Default largest chunk the server accepts (the RPC default message limit less headroom). */
export const DEFAULT_MAX_CHUNK_BYTES = 4 * 1024 * 1024 - 64 * 1024;

/** Options of {@link createTransferHandlers}. */
export interface TransferHandlersOptions {
  /** Directory served: every name resolves inside it. Must exist. */
  root: string;
  /**
   * A partial upload is fdatasync'ed and its confirmed offset written after this many bytes
   * (default 8 MiB), and whenever an upload call ends without committing. A server crash loses
   * at most this much progress; a client crash loses none.
   */
  syncEveryBytes?: number;
  /** Largest file accepted (default 2^53 − 1); beyond it RESOURCE_EXHAUSTED. */
  maxFileBytes?: number;
  /** Largest chunk accepted (default 4 MiB − 64 KiB); beyond it RESOURCE_EXHAUSTED. */
  maxChunkBytes?: number;
  /** Download chunk size when the client asks for 0 (default 64 KiB). */
  downloadChunkBytes?: number;
}

const EMPTY = new Uint8Array(0);

/**
 * The handlers of {@link TransferService} over a root directory: serve them with
 * `server.addService(TransferService, createTransferHandlers({ root }), { codec })`.
 *
 * Uploads are written to `root/.nearwire-transfer/<hash>.part`, checked chunk by chunk
 * (CRC-32C) and as a whole (SHA-256), then fsync'ed and renamed under the final name; one upload
 * per name at a time (another gets ABORTED).
 */
export function createTransferHandlers(
  options: TransferHandlersOptions,
): ServiceImpl<TransferServiceDefinition> {
  let realRoot: string;
  let rootId: string;
  try {
    realRoot = realpathSync(options.root);
    const st = statSync(realRoot);
    rootId = `${st.dev}:${st.ino}`;
  } catch (err) {
    throw NearwireError.from(err, Code.NotFound);
  }
  const syncEveryBytes = options.syncEveryBytes ?? DEFAULT_SYNC_EVERY_BYTES;
  const maxFileBytes = options.maxFileBytes ?? Number.MAX_SAFE_INTEGER;
  const maxChunkBytes = options.maxChunkBytes ?? DEFAULT_MAX_CHUNK_BYTES;
  const downloadChunkBytes = options.downloadChunkBytes ?? DEFAULT_CHUNK_BYTES;
  const active = new Set<string>();

  async function status({ name: raw }: { name: string }): Promise<StatusReply> {
    const name = checkName(raw);
    const { dir: dirSegs, base } = split(name);
    const root = await openRoot(realRoot);
    try {
      let sizeBytes = -1;
      const dir = await openDirIn(root, dirSegs, name).catch(notFoundAs(undefined));
      if (dir !== undefined) {
        try {
          const st = await lstatNoSymlink(dir, base, name);
          if (st?.isFile()) sizeBytes = st.size;
        } finally {
          await dir.close();
        }
      }
      let partial: Awaited<ReturnType<typeof readPartialState>>;
      const staging = await openDirIn(root, [STAGING_DIR_NAME], STAGING_DIR_NAME).catch(
        notFoundAs(undefined),
      );
      if (staging !== undefined) {
        try {
          const state = await readPartialState(partialPaths(staging.path, name));
          if (state !== undefined && state.name === name) partial = state;
        } finally {
          await staging.close();
        }
      }
      return {
        committed: sizeBytes >= 0,
        sizeBytes,
        partialBytes: partial?.confirmedBytes ?? -1,
        partialSizeBytes: partial?.sizeBytes ?? -1,
        active: active.has(name) || (await isLocked(rootId, name)),
      };
    } finally {
      await root.close();
    }
  }

  async function upload(requests: AsyncIterable<UploadChunk>): Promise<UploadReply> {
    const it = requests[Symbol.asyncIterator]();
    const first = await it.next();
    if (first.done === true)
      throw new NearwireError(Code.InvalidArgument, "upload stream had no message");
    let msg = first.value;
    const name = checkName(msg.name);
    const declared = msg.sizeBytes;
    if (!Number.isSafeInteger(declared) || declared < -1)
      throw new NearwireError(Code.InvalidArgument, `sizeBytes ${declared} is not -1 or a size`);
    if (declared > maxFileBytes)
      throw new NearwireError(
        Code.ResourceExhausted,
        `file ${declared} B > maxFileBytes ${maxFileBytes}`,
      );
    const target = split(name);
    if (active.has(name))
      throw new NearwireError(Code.Aborted, `an upload of ${JSON.stringify(name)} is in progress`);
    active.add(name);
    let root: OpenDir | undefined;
    let staging: OpenDir | undefined;
    let lock: UploadLock | undefined;
    let partial: PartialUpload | undefined;
    let writer: ChunkWriter | undefined;
    let committed = false;
    try {
      root = await openRoot(realRoot);
      // Refuse a name that is or is under a symlink before any data is taken (the commit checks
      // again).
      const dir = await openDirIn(root, target.dir, name).catch(notFoundAs(undefined));
      if (dir !== undefined) {
        try {
          await lstatNoSymlink(dir, target.base, name);
        } finally {
          await dir.close();
        }
      }
      lock = await lockUpload(rootId, name);
      if (lock === undefined)
        throw new NearwireError(
          Code.Aborted,
          `an upload of ${JSON.stringify(name)} is in progress in another process`,
        );
      staging = await openDirIn(root, [STAGING_DIR_NAME], STAGING_DIR_NAME, {
        create: true,
        mode: 0o700,
      });
      const paths = partialPaths(staging.path, name);
      partial = await openPartialUpload({
        paths,
        name,
        sizeBytes: declared,
        offsetBytes: msg.offsetBytes,
        syncEveryBytes,
      });
      const w = chunkWriter(partial);
      writer = w;
      let expected = partial.writtenBytes;
      for (;;) {
        const data = decodedBytes(msg.data);
        if (msg.offsetBytes !== expected)
          throw new NearwireError(
            Code.InvalidArgument,
            `chunk at ${msg.offsetBytes} B, expected ${expected} B`,
          );
        if (data.byteLength > maxChunkBytes)
          throw new NearwireError(
            Code.ResourceExhausted,
            `chunk ${data.byteLength} B > maxChunkBytes ${maxChunkBytes}`,
          );
        if (crc32c(data) !== msg.crc32c >>> 0)
          throw new NearwireError(
            Code.DataLoss,
            `chunk at ${expected} B: CRC-32C ${crc32c(data)} != ${msg.crc32c >>> 0}`,
            { reason: "crc-mismatch" },
          );
        const end = expected + data.byteLength;
        if (end > maxFileBytes)
          throw new NearwireError(
            Code.ResourceExhausted,
            `file ${end} B > maxFileBytes ${maxFileBytes}`,
          );
        if (declared >= 0 && end > declared)
          throw new NearwireError(Code.InvalidArgument, `file ${end} B > declared ${declared} B`);
        partial.hash.update(data);
        w.enqueue(data);
        if (w.queuedBytes >= WRITE_QUEUE_BYTES) await w.drain();
        else w.throwIfFailed();
        expected = end;
        if (msg.last) {
          await w.drain();
          const reply = await commit(
            partial,
            root,
            target,
            name,
            declared,
            decodedBytes(msg.sha256),
          );
          committed = true;
          return reply;
        }
        const next = await it.next();
        if (next.done === true) break;
        msg = next.value;
      }
      await w.drain();
      await partial.checkpoint();
      return { committed: false, sizeBytes: partial.confirmedBytes, sha256: EMPTY };
    } catch (err) {
      // Disk full (ENOSPC) becomes RESOURCE_EXHAUSTED; the partial is kept for a resume.
      throw NearwireError.from(err, Code.Internal);
    } finally {
      await writer?.drain().catch(() => {});
      if (partial !== undefined) {
        if (!committed) await partial.checkpoint().catch(() => {});
        await partial.close().catch(() => {});
      }
      await staging?.close().catch(() => {});
      await root?.close().catch(() => {});
      await lock?.release();
      active.delete(name);
    }
  }

  async function commit(
    partial: PartialUpload,
    root: OpenDir,
    target: { dir: string[]; base: string },
    name: string,
    declared: number,
    sha256: Uint8Array,
  ): Promise<UploadReply> {
    const size = partial.writtenBytes;
    if (declared >= 0 && size !== declared)
      throw new NearwireError(
        Code.InvalidArgument,
        `file ended at ${size} B, declared ${declared} B`,
      );
    const digest = partial.hash.digest();
    if (sha256.byteLength !== 32 || !timingSafeEqual(digest, sha256)) {
      // Which chunk is bad cannot be told: the next upload starts over.
      await partial.close().catch(() => {});
      await removePartial(partial.paths);
      partial.writtenBytes = partial.confirmedBytes; // nothing to checkpoint
      throw new NearwireError(Code.DataLoss, `SHA-256 of ${size} B does not match the client's`);
    }
    await partial.handle.sync();
    await partial.handle.close();
    partial.confirmedBytes = size;
    // The final directory is opened (made) segment by segment without following a symlink;
    // the rename names it by descriptor, so it lands in the directory that was checked.
    const dir = await openDirIn(root, target.dir, name, { create: true });
    try {
      // A symlink planted between this check and the rename is replaced by the file: rename
      // never follows one, so nothing outside the root is touched.
      await lstatNoSymlink(dir, target.base, name);
      await rename(partial.paths.part, pathIn(dir, target.base));
      await dir.handle.sync();
    } finally {
      await dir.close();
    }
    await removePartial(partial.paths);
    return { committed: true, sizeBytes: size, sha256: plainBytes(digest) };
  }

  async function* download(
    req: DownloadRequest,
    ctx: HandlerContext,
  ): AsyncIterable<DownloadChunk> {
    const name = checkName(req.name);
    const target = split(name);
    const chunkBytes = req.chunkBytes > 0 ? req.chunkBytes : downloadChunkBytes;
    if (chunkBytes > maxChunkBytes)
      throw new NearwireError(
        Code.InvalidArgument,
        `chunkBytes ${chunkBytes} > maxChunkBytes ${maxChunkBytes}`,
      );
    const handle = await openForReading(name, target);
    let next: Promise<Uint8Array> | undefined;
    try {
      // The version read: a change of it during the read (size, mtime, ctime) fails the call.
      const version = await settledVersion(handle);
      if (!version.isFile())
        throw new NearwireError(Code.InvalidArgument, `${JSON.stringify(name)} is not a file`);
      const size = Number(version.size);
      let offset = req.offsetBytes;
      let hash = createHash("sha256");
      if (offset > 0) {
        const prefix = decodedBytes(req.prefixSha256);
        if (offset <= size) hash = await hashFileRange(handle, 0, offset);
        const ok =
          offset <= size &&
          prefix.byteLength === 32 &&
          timingSafeEqual(hash.copy().digest(), prefix);
        if (!ok) {
          offset = 0;
          hash = createHash("sha256");
        }
      }
      // One read ahead: the next chunk is read from disk while this one is sent.
      const read = (pos: number) => {
        const p = readChunk(handle, pos, Math.min(chunkBytes, size - pos));
        p.catch(() => {}); // awaited later; a failure meanwhile is not unhandled
        return p;
      };
      next = read(offset);
      do {
        const data = await next;
        const end = offset + data.byteLength;
        if (data.byteLength === 0 && end < size) throw changedError(name); // it shrank
        const last = end >= size;
        if (!last) next = read(end);
        // Every byte sent (and hashed) is of one version, or the last chunk never goes out.
        else await checkUnchanged(handle, version, name);
        hash.update(data);
        ctx.signal.throwIfAborted();
        yield {
          offsetBytes: offset,
          data,
          crc32c: crc32c(data),
          sizeBytes: size,
          last,
          sha256: last ? plainBytes(hash.digest()) : EMPTY,
        };
        offset = end;
        if (last) return;
      } while (true);
    } catch (err) {
      throw NearwireError.from(err, Code.Internal);
    } finally {
      await next?.catch(() => {});
      await handle.close().catch(() => {});
    }
  }

  /** Opens `name` for reading, following no symlink (O_NONBLOCK: a FIFO cannot block it). */
  async function openForReading(
    name: string,
    target: { dir: string[]; base: string },
  ): Promise<FileHandle> {
    const root = await openRoot(realRoot);
    try {
      const dir = await openDirIn(root, target.dir, name);
      try {
        return await openFileIn(dir, target.base, constants.O_RDONLY | constants.O_NONBLOCK, name);
      } finally {
        await dir.close();
      }
    } finally {
      await root.close();
    }
  }

  return { status, upload, download };
}

/** A checked name as its directory segments and its last segment. */
function split(name: string): { dir: string[]; base: string } {
  const segments = name.split("/");
  const base = segments.pop() as string;
  return { dir: segments, base };
}

/** A catch handler: NOT_FOUND becomes `value`, anything else is rethrown. */
function notFoundAs<T>(value: T): (err: unknown) => T {
  return (err) => {
    if (err instanceof NearwireError && err.code === Code.NotFound) return value;
    throw err;
  };
}

async function readChunk(handle: FileHandle, pos: number, bytes: number): Promise<Uint8Array> {
  const buf = Buffer.allocUnsafe(Math.max(bytes, 0));
  let got = 0;
  while (got < bytes) {
    const { bytesRead } = await handle.read(buf, got, bytes - got, pos + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return new Uint8Array(buf.buffer, buf.byteOffset, got);
}
