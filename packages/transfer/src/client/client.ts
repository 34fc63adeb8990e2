import type { Client, ClientConnection, Codec } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import { directWritesOption } from "../file-writes.js";
import {
  DEFAULT_CHUNK_BYTES,
  DEFAULT_MAX_CHUNK_BYTES,
  DEFAULT_RESUME_FROM_BYTES,
} from "../limits.js";
import { checkName } from "../name.js";
import { type StatusReply, TransferService, type TransferServiceDefinition } from "../service.js";
import { downloadToPath, downloadToStream } from "./download.js";
import {
  type AttemptResult,
  callOptions,
  type DownloadDestination,
  type TransferCallOptions,
  type TransferResult,
  type UploadSource,
} from "./options.js";
import { uploadOnce } from "./upload.js";

/** Options of {@link createTransferClient}. */
export interface TransferClientOptions {
  /** A connection of any transport. */
  connection: ClientConnection;
  /** The codec the server binds the transfer service with. */
  codec: Codec;
  /** Bytes per chunk (default 64 KiB, at most 4 MiB − 64 KiB and the transport's message limit). */
  chunkBytes?: number;
  /**
   * An upload asks the server for a partial upload to resume (a `status` call before the
   * data) only when its size is known and at least this (default 4 MiB). A smaller one starts
   * at once from byte 0: sending it again after a failure costs a few milliseconds, the round
   * trip costs that on every upload. 0: every upload of a known size asks.
   */
  resumeFromBytes?: number;
}

/** The client side of `TransferService`. */
export interface TransferClient {
  /**
   * Uploads `source` as `name`, resuming a partial upload of the same size if there is one
   * (for a size of at least `resumeFromBytes`).
   */
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

/**
 * A transfer client over one connection.
 *
 * @example
 * ```ts
 * import { createTransferClient, loadTransferCodec } from "@nearwire/transfer";
 * import { createUdsTransport } from "@nearwire/uds";
 *
 * // The server: addService(TransferService, createTransferHandlers({ root }), { codec })
 * const transport = createUdsTransport({ address: "/tmp/nearwire-transfer.sock" });
 * await using connection = await transport.connect();
 * const client = createTransferClient({ connection, codec: await loadTransferCodec("msgpack") });
 * const up = await client.upload("./big.iso", "images/big.iso", {
 *   onProgress: (p) => console.log(`${p.transferredBytes} of ${p.totalBytes} B`),
 * });
 * await client.download("images/big.iso", "./copy.iso"); // a cut download resumes
 * console.log(up.sha256);
 * ```
 */
export function createTransferClient(options: TransferClientOptions): TransferClient {
  const rpc: Client<TransferServiceDefinition> = options.connection.client(TransferService, {
    codec: options.codec,
  });
  const defaultChunkBytes = checkChunkBytes(options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const resumeFromBytes = options.resumeFromBytes ?? DEFAULT_RESUME_FROM_BYTES;
  if (!Number.isSafeInteger(resumeFromBytes) || resumeFromBytes < 0)
    throw new NearwireError(
      Code.InvalidArgument,
      `resumeFromBytes ${resumeFromBytes} is not a size in bytes`,
    );
  return {
    async status(name, opts = {}) {
      checkName(name);
      return rpc.status({ name }, callOptions(opts));
    },

    async upload(source, name, opts = {}) {
      checkName(name);
      const chunkBytes = checkChunkBytes(opts.chunkBytes ?? defaultChunkBytes);
      return retrying(typeof source === "string", opts, () =>
        uploadOnce(rpc, source, name, { chunkBytes, resumeFromBytes }, opts),
      );
    },

    async download(name, dest, opts = {}) {
      checkName(name);
      const chunkBytes = checkChunkBytes(opts.chunkBytes ?? defaultChunkBytes);
      directWritesOption(opts.directWrites);
      return retrying(typeof dest === "string", opts, () =>
        typeof dest === "string"
          ? downloadToPath(rpc, name, dest, chunkBytes, opts)
          : downloadToStream(rpc, name, dest, chunkBytes, opts),
      );
    },
  };
}

/**
 * Runs `attempt` again after DATA_LOSS (it resumes from what was confirmed), up to
 * `opts.maxAttempts` (default 3) in all when `retriable`, else once.
 */
async function retrying(
  retriable: boolean,
  opts: TransferCallOptions,
  attempt: () => Promise<AttemptResult>,
): Promise<TransferResult> {
  const maxAttempts = retriable ? Math.max(1, opts.maxAttempts ?? 3) : 1;
  for (let attempts = 1; ; attempts++) {
    try {
      return { ...(await attempt()), attempts };
    } catch (err) {
      if (!(err instanceof NearwireError) || err.code !== Code.DataLoss || attempts >= maxAttempts)
        throw err;
    }
  }
}

function checkChunkBytes(chunkBytes: number): number {
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1 || chunkBytes > DEFAULT_MAX_CHUNK_BYTES)
    throw new NearwireError(
      Code.InvalidArgument,
      `chunkBytes ${chunkBytes} not in [1, ${DEFAULT_MAX_CHUNK_BYTES}]`,
    );
  return chunkBytes;
}
