import { createHash, timingSafeEqual } from "node:crypto";
import { once } from "node:events";
import { constants, createReadStream } from "node:fs";
import { open, rename, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { Client, ClientConnection, Codec } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import { crc32c } from "@nearwire/frame";
import { hashFileRange } from "../hash-file-range.js";
import { checkName } from "../name.js";
import { decodedBytes, plainBytes } from "../plain-bytes.js";
import { DEFAULT_CHUNK_BYTES, DEFAULT_MAX_CHUNK_BYTES } from "../server/handlers.js";
import {
  type DownloadRequest,
  type StatusReply,
  TransferService,
  type TransferServiceDefinition,
  type UploadChunk,
} from "../service.js";
import { fsyncDir } from "./fsync-dir.js";
import { rechunk } from "./rechunk.js";

/** What an upload reads: a file path, a Node Readable, or any (async) iterable of bytes. */
export type UploadSource =
  | string
  | AsyncIterable<Uint8Array | string>
  | Iterable<Uint8Array | string>;

/** Where a download writes: a file path (resumable) or a Node Writable (not ended after). */
export type DownloadDestination = string | NodeJS.WritableStream;

/** Suffix of a download's partial file next to its destination. */
export const DOWNLOAD_PART_SUFFIX = ".nearwire-part";

/** A progress event of an upload or a download. */
export interface TransferProgress {
  readonly name: string;
  /** Bytes of the file sent (upload) or written (download) so far, including resumed ones. */
  readonly transferredBytes: number;
  /** Size of the file, or -1 when unknown (a stream source without `sizeBytes`). */
  readonly totalBytes: number;
  /** Where this attempt started: the confirmed offset of a resumed transfer, else 0. */
  readonly resumedFromBytes: number;
}

/** Options of one upload or download. */
export interface TransferCallOptions {
  /** Aborting cancels the transfer (CANCELLED); an upload's partial stays for a resume. */
  signal?: AbortSignal;
  /** Called after each chunk. */
  onProgress?: (progress: TransferProgress) => void;
  /** Bytes per chunk; default the client's. */
  chunkBytes?: number;
  /** Deadline of each call, in ms. Default none. */
  timeoutMs?: number;
  /**
   * Attempts in all when a check fails (DATA_LOSS): the next attempt resumes from the last
   * confirmed offset. Only for path sources and destinations (a stream cannot be re-read).
   * Default 3.
   */
  maxAttempts?: number;
  /** Upload of a stream source: its size, checked by the server. Default unknown. */
  sizeBytes?: number;
}

/** The outcome of a finished upload or download. */
export interface TransferResult {
  readonly name: string;
  readonly sizeBytes: number;
  /** SHA-256 of the whole file, lower-case hex. */
  readonly sha256: string;
  /** Where the last attempt started (0 when nothing was resumed). */
  readonly resumedFromBytes: number;
  /** Attempts made (1 unless a check failed). */
  readonly attempts: number;
}

/** Options of {@link createTransferClient}. */
export interface TransferClientOptions {
  /** A connection of any transport. */
  connection: ClientConnection;
  /** The codec the server binds the transfer service with. */
  codec: Codec;
  /** Bytes per chunk (default 64 KiB, at most 4 MiB − 64 KiB and the transport's message limit). */
  chunkBytes?: number;
}

/** The client side of {@link TransferService}. */
export interface TransferClient {
  /** Uploads `source` as `name`, resuming a partial upload of the same size if there is one. */
  upload(
    source: UploadSource,
    name: string,
    options?: TransferCallOptions,
  ): Promise<TransferResult>;
  /** Downloads `name` into `dest`; a path destination resumes from its `.nearwire-part` file. */
  download(
    name: string,
    dest: DownloadDestination,
    options?: TransferCallOptions,
  ): Promise<TransferResult>;
  /** What the server has under `name`. */
  status(
    name: string,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<StatusReply>;
}

const EMPTY = new Uint8Array(0);

/** A transfer client over one connection. */
export function createTransferClient(options: TransferClientOptions): TransferClient {
  const rpc: Client<TransferServiceDefinition> = options.connection.client(TransferService, {
    codec: options.codec,
  });
  const defaultChunkBytes = checkChunkBytes(options.chunkBytes ?? DEFAULT_CHUNK_BYTES);

  async function retrying(
    retriable: boolean,
    opts: TransferCallOptions,
    attempt: () => Promise<Omit<TransferResult, "attempts">>,
  ): Promise<TransferResult> {
    const maxAttempts = retriable ? Math.max(1, opts.maxAttempts ?? 3) : 1;
    for (let attempts = 1; ; attempts++) {
      try {
        return { ...(await attempt()), attempts };
      } catch (err) {
        if (
          !(err instanceof NearwireError) ||
          err.code !== Code.DataLoss ||
          attempts >= maxAttempts
        )
          throw err;
      }
    }
  }

  return {
    async status(name, opts = {}) {
      checkName(name);
      return rpc.status({ name }, callOptions(opts));
    },

    async upload(source, name, opts = {}) {
      checkName(name);
      const chunkBytes = checkChunkBytes(opts.chunkBytes ?? defaultChunkBytes);
      return retrying(typeof source === "string", opts, async () => {
        const sizeBytes =
          typeof source === "string" ? (await stat(source)).size : (opts.sizeBytes ?? -1);
        const st = await rpc.status({ name }, callOptions(opts));
        const resumeAt =
          st.partialBytes > 0 && st.partialSizeBytes === sizeBytes && sizeBytes >= 0
            ? st.partialBytes
            : 0;
        const hash = createHash("sha256");
        const bytes =
          typeof source === "string"
            ? createReadStream(source, {
                highWaterMark: chunkBytes,
                ...(opts.signal === undefined ? {} : { signal: opts.signal }),
              })
            : source;
        let total = 0;
        async function* messages(): AsyncGenerator<UploadChunk> {
          let pos = 0;
          let first = true;
          let held: { data: Uint8Array; at: number } | undefined;
          const message = (data: Uint8Array, at: number, last: boolean): UploadChunk => {
            const m: UploadChunk = {
              name: first ? name : "",
              sizeBytes: first ? sizeBytes : -1,
              offsetBytes: at,
              data: plainBytes(data),
              crc32c: crc32c(data),
              last,
              sha256: last ? plainBytes(hash.digest()) : EMPTY,
            };
            first = false;
            return m;
          };
          for await (const chunk of rechunk(bytes, chunkBytes)) {
            hash.update(chunk);
            const end = pos + chunk.byteLength;
            if (end > resumeAt) {
              const at = Math.max(pos, resumeAt);
              if (held !== undefined) {
                yield message(held.data, held.at, false);
                progress(held.at + held.data.byteLength);
              }
              held = { data: chunk.subarray(at - pos), at };
            }
            pos = end;
          }
          total = pos;
          if (pos < resumeAt)
            throw new NearwireError(
              Code.FailedPrecondition,
              `source ended at ${pos} B, before the confirmed ${resumeAt} B`,
            );
          yield message(held?.data ?? EMPTY, held?.at ?? pos, true);
          progress(pos);
        }
        const progress = (transferredBytes: number) =>
          opts.onProgress?.({
            name,
            transferredBytes,
            totalBytes: sizeBytes,
            resumedFromBytes: resumeAt,
          });
        progress(resumeAt);
        const reply = await rpc.upload(messages(), callOptions(opts));
        if (!reply.committed)
          throw new NearwireError(Code.Internal, `upload of ${total} B ended uncommitted`);
        return {
          name,
          sizeBytes: reply.sizeBytes,
          sha256: Buffer.from(reply.sha256).toString("hex"),
          resumedFromBytes: resumeAt,
        };
      });
    },

    async download(name, dest, opts = {}) {
      checkName(name);
      const chunkBytes = checkChunkBytes(opts.chunkBytes ?? defaultChunkBytes);
      return retrying(typeof dest === "string", opts, () =>
        typeof dest === "string"
          ? downloadToPath(rpc, name, dest, chunkBytes, opts)
          : downloadToStream(rpc, name, dest, chunkBytes, opts),
      );
    },
  };
}

async function downloadToPath(
  rpc: Client<TransferServiceDefinition>,
  name: string,
  dest: string,
  chunkBytes: number,
  opts: TransferCallOptions,
): Promise<Omit<TransferResult, "attempts">> {
  const part = dest + DOWNLOAD_PART_SUFFIX;
  const fh = await open(part, constants.O_RDWR | constants.O_CREAT, 0o600);
  let pending: Promise<unknown> | undefined;
  let closed = false;
  try {
    const have = (await fh.stat()).size;
    let hash = await hashFileRange(fh, 0, have);
    const req: DownloadRequest = {
      name,
      offsetBytes: have,
      prefixSha256: have > 0 ? plainBytes(hash.copy().digest()) : EMPTY,
      chunkBytes,
    };
    let pos = have;
    let resumedFromBytes = have;
    for await (const c of rpc.download(req, callOptions(opts))) {
      const data = decodedBytes(c.data);
      if (c.offsetBytes !== pos) {
        if (c.offsetBytes !== 0)
          throw new NearwireError(Code.Internal, `chunk at ${c.offsetBytes} B, expected ${pos} B`);
        // The server's file differs from our prefix: start over.
        await pending;
        await fh.truncate(0);
        hash = createHash("sha256");
        pos = 0;
        resumedFromBytes = 0;
      }
      if (crc32c(data) !== c.crc32c >>> 0)
        throw new NearwireError(Code.DataLoss, `chunk at ${pos} B: CRC-32C mismatch`, {
          reason: "crc-mismatch",
        });
      hash.update(data);
      await pending;
      pending = writeAll(fh, data, pos);
      pending.catch(() => {}); // awaited before the next write; not unhandled meanwhile
      pos += data.byteLength;
      opts.onProgress?.({ name, transferredBytes: pos, totalBytes: c.sizeBytes, resumedFromBytes });
      if (c.last) {
        await pending;
        pending = undefined;
        const digest = hash.digest();
        if (pos !== c.sizeBytes || !sameDigest(digest, decodedBytes(c.sha256))) {
          closed = true;
          await fh.close();
          await rm(part, { force: true });
          throw new NearwireError(Code.DataLoss, `SHA-256 of ${pos} B does not match the server's`);
        }
        await fh.sync();
        closed = true;
        await fh.close();
        await rename(part, dest);
        await fsyncDir(dirname(dest));
        return { name, sizeBytes: pos, sha256: digest.toString("hex"), resumedFromBytes };
      }
    }
    throw new NearwireError(Code.Unavailable, `download of ${JSON.stringify(name)} ended early`);
  } finally {
    await pending?.catch(() => {});
    if (!closed) await fh.close().catch(() => {});
  }
}

async function downloadToStream(
  rpc: Client<TransferServiceDefinition>,
  name: string,
  dest: NodeJS.WritableStream,
  chunkBytes: number,
  opts: TransferCallOptions,
): Promise<Omit<TransferResult, "attempts">> {
  const hash = createHash("sha256");
  let pos = 0;
  const req: DownloadRequest = { name, offsetBytes: 0, prefixSha256: EMPTY, chunkBytes };
  for await (const c of rpc.download(req, callOptions(opts))) {
    const data = decodedBytes(c.data);
    if (c.offsetBytes !== pos)
      throw new NearwireError(Code.Internal, `chunk at ${c.offsetBytes} B, expected ${pos} B`);
    if (crc32c(data) !== c.crc32c >>> 0)
      throw new NearwireError(Code.DataLoss, `chunk at ${pos} B: CRC-32C mismatch`, {
        reason: "crc-mismatch",
      });
    hash.update(data);
    // Copy: a decoded chunk may be a view of a receive buffer the stream would keep.
    if (!dest.write(Buffer.from(data))) await once(dest, "drain");
    pos += data.byteLength;
    opts.onProgress?.({
      name,
      transferredBytes: pos,
      totalBytes: c.sizeBytes,
      resumedFromBytes: 0,
    });
    if (c.last) {
      const digest = hash.digest();
      if (pos !== c.sizeBytes || !sameDigest(digest, decodedBytes(c.sha256)))
        throw new NearwireError(Code.DataLoss, `SHA-256 of ${pos} B does not match the server's`);
      return { name, sizeBytes: pos, sha256: digest.toString("hex"), resumedFromBytes: 0 };
    }
  }
  throw new NearwireError(Code.Unavailable, `download of ${JSON.stringify(name)} ended early`);
}

async function writeAll(
  fh: Awaited<ReturnType<typeof open>>,
  data: Uint8Array,
  pos: number,
): Promise<void> {
  let done = 0;
  while (done < data.byteLength) {
    const { bytesWritten } = await fh.write(data, done, data.byteLength - done, pos + done);
    done += bytesWritten;
  }
}

function sameDigest(a: Uint8Array, b: Uint8Array | undefined): boolean {
  return b !== undefined && a.byteLength === b.byteLength && timingSafeEqual(a, b);
}

function checkChunkBytes(chunkBytes: number): number {
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1 || chunkBytes > DEFAULT_MAX_CHUNK_BYTES)
    throw new NearwireError(
      Code.InvalidArgument,
      `chunkBytes ${chunkBytes} not in [1, ${DEFAULT_MAX_CHUNK_BYTES}]`,
    );
  return chunkBytes;
}

function callOptions(opts: { signal?: AbortSignal; timeoutMs?: number }) {
  return {
    ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
  };
}
