import { Code, forEachMessage, NearwireError } from "@nearwire/core";
import { crc32c } from "@nearwire/frame";
import { type ChunkWriter, chunkWriter } from "../chunk-writer.js";
import { localFsError } from "../local-fs-error.js";
import { checkName, splitName } from "../name.js";
import { decodedBytes } from "../plain-bytes.js";
import type { UploadChunk, UploadReply } from "../service.js";
import { commitUpload } from "./commit.js";
import { openPartialUpload, type PartialUpload, partialPaths } from "./partial-upload.js";
import { lstatNoSymlink, notFoundAs, type OpenDir, openDirIn } from "./root-dir.js";
import type { ServedLimits, ServedRoot } from "./served-root.js";
import { lockUpload, type UploadLock } from "./upload-lock.js";

const EMPTY = new Uint8Array(0);

/** What one upload call holds; everything set is released when the call ends. */
interface UploadCall {
  readonly name: string;
  /** Declared size of the whole file, -1 when unknown. */
  readonly declared: number;
  /** The served root, held (acquired) by this call. */
  root?: OpenDir;
  lock?: UploadLock;
  partial?: PartialUpload;
  writer?: ChunkWriter;
  committed: boolean;
}

/**
 * The `upload` handler. The first message names the file and its declared size; chunks are
 * checked (offset, size, CRC-32C) and written to the partial upload behind the receive loop;
 * the `last` one commits. A stream that ends without `last` checkpoints what arrived, for a
 * resume. One upload per name at a time (another gets ABORTED).
 */
export async function upload(
  served: ServedRoot,
  requests: AsyncIterable<UploadChunk>,
): Promise<UploadReply> {
  const it = requests[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done === true)
    throw new NearwireError(Code.InvalidArgument, "upload stream had no message");
  const call: UploadCall = { ...checkHeader(first.value, served.limits), committed: false };
  if (served.active.has(call.name))
    throw new NearwireError(
      Code.Aborted,
      `an upload of ${JSON.stringify(call.name)} is in progress`,
    );
  served.active.add(call.name);
  try {
    const partial = await start(served, call, first.value.offsetBytes);
    return await receive(served.limits, call, partial, first.value, it);
  } catch (err) {
    // Disk full (ENOSPC) becomes RESOURCE_EXHAUSTED; the partial is kept for a resume.
    throw localFsError(err, `upload of ${JSON.stringify(call.name)}`);
  } finally {
    await release(served, call);
    served.active.delete(call.name);
  }
}

/** The name and declared size of the first message, checked against the limits. */
function checkHeader(msg: UploadChunk, limits: ServedLimits): { name: string; declared: number } {
  const name = checkName(msg.name);
  const declared = msg.sizeBytes;
  if (!Number.isSafeInteger(declared) || declared < -1)
    throw new NearwireError(Code.InvalidArgument, `sizeBytes ${declared} is not -1 or a size`);
  if (declared > limits.maxFileBytes)
    throw new NearwireError(
      Code.ResourceExhausted,
      `file ${declared} B > maxFileBytes ${limits.maxFileBytes}`,
    );
  return { name, declared };
}

/** Takes the cross-process lock and opens the partial upload (new, or resumed at `offsetBytes`). */
async function start(
  served: ServedRoot,
  call: UploadCall,
  offsetBytes: number,
): Promise<PartialUpload> {
  const { name } = call;
  const root = await served.dirs.acquire();
  call.root = root;
  // Refuse a name that is or is under a symlink before any data is taken (the commit checks
  // again).
  const target = splitName(name);
  const dir = await openDirIn(root, target.dir, name).catch(notFoundAs(undefined));
  if (dir !== undefined) {
    try {
      await lstatNoSymlink(dir, target.base, name);
    } finally {
      await dir.close();
    }
  }
  const lock = await lockUpload(served.rootId, name);
  if (lock === undefined)
    throw new NearwireError(
      Code.Aborted,
      `an upload of ${JSON.stringify(name)} is in progress in another process`,
    );
  call.lock = lock;
  const openPartial = async () =>
    openPartialUpload({
      paths: partialPaths(((await served.dirs.staging(root, true)) as OpenDir).path, name),
      name,
      sizeBytes: call.declared,
      offsetBytes,
      syncEveryBytes:
        served.limits.durable === "full" ? served.limits.syncEveryBytes : Number.POSITIVE_INFINITY,
      sync: served.limits.durable !== "none",
      directWrites: served.limits.directWrites,
    });
  call.partial = await openPartial().catch((err: unknown) => {
    // A new partial that cannot be made: the held staging directory was removed. Once more,
    // in a new one.
    if (offsetBytes !== 0 || !(err instanceof NearwireError) || err.code !== Code.NotFound)
      throw err;
    served.dirs.forgetStaging();
    return openPartial();
  });
  return call.partial;
}

/**
 * Checks and writes chunks from `firstMessage` on; commits on `last`, else checkpoints at the
 * end. The chunks are taken by `forEachMessage`: a chunk that arrives while the loop waits is
 * checked, hashed and copied into the write batch as it is received, with no promise.
 */
async function receive(
  limits: ServedLimits,
  call: UploadCall,
  partial: PartialUpload,
  firstMessage: UploadChunk,
  it: AsyncIterator<UploadChunk>,
): Promise<UploadReply> {
  const w = chunkWriter(partial);
  call.writer = w;
  let expected = partial.writtenBytes;
  let sha256: Uint8Array = EMPTY;
  /** One chunk; true (or a promise of it, when the write has to wait) once it was the last. */
  const take = (msg: UploadChunk): boolean | Promise<boolean> => {
    const data = decodedBytes(msg.data);
    expected = checkChunk(limits, call.declared, msg, data, expected);
    partial.hash.update(data);
    const last = msg.last;
    if (last) sha256 = decodedBytes(msg.sha256);
    const wait = w.write(data);
    return wait === undefined ? last : wait.then(() => last);
  };
  const committing = (await take(firstMessage)) || (await forEachMessage(it, take));
  await w.drain();
  if (!committing) {
    await partial.checkpoint();
    return { committed: false, sizeBytes: partial.confirmedBytes, sha256: EMPTY };
  }
  const reply = await commitUpload(
    partial,
    call.root as OpenDir,
    call.name,
    call.declared,
    sha256,
    limits.durable !== "none",
  );
  call.committed = true;
  return reply;
}

/** Checks one chunk expected at `expected` B; returns where the next one starts. */
function checkChunk(
  limits: ServedLimits,
  declared: number,
  msg: UploadChunk,
  data: Uint8Array,
  expected: number,
): number {
  if (msg.offsetBytes !== expected)
    throw new NearwireError(
      Code.InvalidArgument,
      `chunk at ${msg.offsetBytes} B, expected ${expected} B`,
    );
  if (data.byteLength > limits.maxChunkBytes)
    throw new NearwireError(
      Code.ResourceExhausted,
      `chunk ${data.byteLength} B > maxChunkBytes ${limits.maxChunkBytes}`,
    );
  if (crc32c(data) !== msg.crc32c >>> 0)
    throw new NearwireError(
      Code.DataLoss,
      `chunk at ${expected} B: CRC-32C ${crc32c(data)} != ${msg.crc32c >>> 0}`,
      { reason: "crc-mismatch" },
    );
  const end = expected + data.byteLength;
  if (end > limits.maxFileBytes)
    throw new NearwireError(
      Code.ResourceExhausted,
      `file ${end} B > maxFileBytes ${limits.maxFileBytes}`,
    );
  if (declared >= 0 && end > declared)
    throw new NearwireError(Code.InvalidArgument, `file ${end} B > declared ${declared} B`);
  return end;
}

/** Ends an upload call: pending writes, a checkpoint unless committed, handles, the lock. */
async function release(served: ServedRoot, call: UploadCall): Promise<void> {
  await call.writer?.drain().catch(() => {});
  call.writer?.release();
  if (call.partial !== undefined) {
    if (!call.committed) await call.partial.checkpoint().catch(() => {});
    await call.partial.close().catch(() => {});
  }
  if (call.root !== undefined) served.dirs.release();
  await call.lock?.release();
}
