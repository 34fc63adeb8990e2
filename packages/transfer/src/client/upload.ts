import { createHash, type Hash } from "node:crypto";
import { stat } from "node:fs/promises";
import type { Client } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import { crc32c } from "@nearwire/frame";
import { localFsError } from "../local-fs-error.js";
import { plainBytes } from "../plain-bytes.js";
import type { TransferServiceDefinition, UploadChunk } from "../service.js";
import { FileMessages } from "./file-messages.js";
import {
  type AttemptResult,
  callOptions,
  type TransferCallOptions,
  type UploadSource,
} from "./options.js";
import { rechunk } from "./rechunk.js";

const EMPTY = new Uint8Array(0);

/**
 * One attempt of an upload: for a known size of at least `resumeFromBytes`, asks `status` for a
 * partial upload of the same declared size and re-reads (and hashes) the source up to its
 * confirmed offset; then streams the rest.
 */
export async function uploadOnce(
  rpc: Client<TransferServiceDefinition>,
  source: UploadSource,
  name: string,
  { chunkBytes, resumeFromBytes }: { chunkBytes: number; resumeFromBytes: number },
  opts: TransferCallOptions,
): Promise<AttemptResult> {
  const sizeBytes = typeof source === "string" ? await fileSize(source) : (opts.sizeBytes ?? -1);
  // A partial upload is resumed only at the same declared size: of an unknown size never.
  let resumeAt = 0;
  if (sizeBytes >= 0 && sizeBytes >= resumeFromBytes) {
    const st = await rpc.status({ name }, callOptions(opts));
    if (st.partialBytes > 0 && st.partialSizeBytes === sizeBytes) resumeAt = st.partialBytes;
  }
  // No progress once the attempt is over: the engine may still pull a message it will not send
  // after the call failed (or was cancelled), and a report after the failure would be a lie.
  let over = false;
  const progress = (transferredBytes: number) => {
    if (!over)
      opts.onProgress?.({
        name,
        transferredBytes,
        totalBytes: sizeBytes,
        resumedFromBytes: resumeAt,
      });
  };
  const hash = createHash("sha256");
  const sent = { totalBytes: 0 };
  progress(resumeAt);
  const messages =
    typeof source === "string"
      ? new FileMessages({
          path: source,
          name,
          sizeBytes,
          resumeAt,
          chunkBytes,
          hash,
          progress,
          sent,
        })
      : uploadMessages({
          name,
          sizeBytes,
          resumeAt,
          bytes: source,
          chunkBytes,
          hash,
          progress,
          sent,
        });
  const reply = await rpc.upload(messages, callOptions(opts)).finally(() => {
    over = true;
  });
  if (!reply.committed)
    throw new NearwireError(Code.Internal, `upload of ${sent.totalBytes} B ended uncommitted`);
  return {
    name,
    sizeBytes: reply.sizeBytes,
    sha256: Buffer.from(reply.sha256).toString("hex"),
    resumedFromBytes: resumeAt,
  };
}

/** The size of the local file `path`; a missing file is NOT_FOUND, a directory INVALID_ARGUMENT. */
export async function fileSize(path: string): Promise<number> {
  const context = `local file ${JSON.stringify(path)}`;
  const st = await stat(path).catch((err: unknown) => {
    throw localFsError(err, context);
  });
  if (st.isDirectory()) throw new NearwireError(Code.InvalidArgument, `${context} is a directory`);
  return st.size;
}

/** What {@link uploadMessages} reads and reports. */
interface UploadStream {
  name: string;
  /** Declared size, -1 when unknown. */
  sizeBytes: number;
  /** The server's confirmed offset: bytes before it are hashed, not sent. */
  resumeAt: number;
  bytes: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;
  chunkBytes: number;
  /** SHA-256 of every byte read, sent with the last message. */
  hash: Hash;
  progress: (transferredBytes: number) => void;
  /** Set once the source has ended: its size. */
  sent: { totalBytes: number };
}

/**
 * The upload's messages from a stream or iterable source (a file has {@link FileMessages}): the source cut into chunks, from `resumeAt` on. One chunk is held
 * back so the last one can carry `last` and the SHA-256 of the whole file.
 */
async function* uploadMessages(s: UploadStream): AsyncGenerator<UploadChunk> {
  let pos = 0;
  let first = true;
  let held: { data: Uint8Array; at: number } | undefined;
  const message = (data: Uint8Array, at: number, last: boolean): UploadChunk => {
    const m: UploadChunk = {
      name: first ? s.name : "",
      sizeBytes: first ? s.sizeBytes : -1,
      offsetBytes: at,
      data: plainBytes(data),
      crc32c: crc32c(data),
      last,
      sha256: last ? plainBytes(s.hash.digest()) : EMPTY,
    };
    first = false;
    return m;
  };
  for await (const chunk of rechunk(s.bytes, s.chunkBytes)) {
    s.hash.update(chunk);
    const end = pos + chunk.byteLength;
    if (end > s.resumeAt) {
      const at = Math.max(pos, s.resumeAt);
      if (held !== undefined) {
        yield message(held.data, held.at, false);
        s.progress(held.at + held.data.byteLength);
      }
      held = { data: chunk.subarray(at - pos), at };
    }
    pos = end;
  }
  s.sent.totalBytes = pos;
  if (pos < s.resumeAt)
    throw new NearwireError(
      Code.FailedPrecondition,
      `source ended at ${pos} B, before the confirmed ${s.resumeAt} B`,
    );
  yield message(held?.data ?? EMPTY, held?.at ?? pos, true);
  s.progress(pos);
}
