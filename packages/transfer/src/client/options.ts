/** What an upload reads: a file path, a Node Readable, or any (async) iterable of bytes. */
export type UploadSource =
  | string
  | AsyncIterable<Uint8Array | string>
  | Iterable<Uint8Array | string>;

/** Where a download writes: a file path (resumable) or a Node Writable (not ended after). */
export type DownloadDestination = string | NodeJS.WritableStream;

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
  /**
   * Download into a Writable: the Writable is done with each chunk once the write's callback
   * has run (true of a file or socket stream and of most sinks; not of a PassThrough, or of one
   * that keeps the chunks it is given). The client then writes from a few reused buffers (about
   * 1 MiB, copied into), not a fresh buffer per chunk: no garbage per chunk, and flat memory.
   * The download ends once every write has called back. Default true for an `fs.WriteStream`
   * or a `net.Socket`, else false (each chunk is the Writable's to keep). Ignored for a path
   * destination, which reuses its buffers anyway.
   */
  lendChunks?: boolean;
  /**
   * Download to a path: whole 512 KiB write batches go to the file past the page cache
   * (O_DIRECT), where the file system takes it, and the rest through it (default true; see the
   * server's `directWrites`). False keeps every write in the page cache, for a file read right
   * after it arrived. Ignored for a Writable destination.
   */
  directWrites?: boolean;
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

/** The outcome of one attempt (the client counts the attempts). */
export type AttemptResult = Omit<TransferResult, "attempts">;

/** The RPC options of one call: the caller's signal and deadline, when given. */
export function callOptions(opts: { signal?: AbortSignal; timeoutMs?: number }) {
  return {
    ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
  };
}
