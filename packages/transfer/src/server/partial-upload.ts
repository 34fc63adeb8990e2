import { createHash, type Hash } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, open, rename, unlink } from "node:fs/promises";
import { Code, NearwireError } from "@nearwire/core";
import { hashFileRange } from "../hash-file-range.js";
import { localFsError } from "../local-fs-error.js";

/** What the state file of a partial upload records (JSON, next to the `.part` file). */
export interface PartialState {
  name: string;
  /** Declared size of the whole file, -1 when unknown. */
  sizeBytes: number;
  /** Bytes of the `.part` file that were fdatasync'ed before this state was written. */
  confirmedBytes: number;
}

/** Paths of one name's partial upload inside the staging directory. */
export interface PartialPaths {
  readonly dir: string;
  readonly part: string;
  readonly state: string;
}

/**
 * The staging paths of `name` in the staging directory `dir` (an open directory's
 * `/proc/self/fd/N` path, see `root-dir.ts`); file names are a hash of the name. Every file
 * here is opened with O_NOFOLLOW: a symlink planted in the staging directory is never written
 * through.
 */
export function partialPaths(dir: string, name: string): PartialPaths {
  const key = createHash("sha256").update(name).digest("hex").slice(0, 40);
  return { dir, part: `${dir}/${key}.part`, state: `${dir}/${key}.json` };
}

const NOFOLLOW = constants.O_NOFOLLOW;
const READ = constants.O_RDONLY | constants.O_NONBLOCK | NOFOLLOW;
const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NOFOLLOW;

/** Reads the state of a partial upload; undefined when there is none (or it is unreadable). */
export async function readPartialState(paths: PartialPaths): Promise<PartialState | undefined> {
  try {
    const fh = await open(paths.state, READ);
    let text: string;
    try {
      text = await fh.readFile("utf8");
    } finally {
      await fh.close();
    }
    const state = JSON.parse(text) as PartialState;
    if (
      typeof state.name !== "string" ||
      !Number.isSafeInteger(state.confirmedBytes) ||
      !Number.isSafeInteger(state.sizeBytes)
    )
      return undefined;
    return state;
  } catch {
    return undefined;
  }
}

/** Options of {@link openPartialUpload}. */
export interface OpenPartialUploadOptions {
  paths: PartialPaths;
  name: string;
  /** Declared size, -1 when unknown. */
  sizeBytes: number;
  /** Where the client starts: 0 starts over, anything else must be the confirmed offset. */
  offsetBytes: number;
  /** fdatasync + state checkpoint after this many bytes written since the last one. */
  syncEveryBytes: number;
  /** False: checkpoints write the state without fdatasync or fsync (`durable: "none"`). */
  sync: boolean;
}

/**
 * An upload in progress: the `.part` file, its confirmed (durable) offset and the running
 * SHA-256 of bytes `[0, writtenBytes)`.
 */
export interface PartialUpload {
  readonly handle: FileHandle;
  readonly paths: PartialPaths;
  readonly hash: Hash;
  /** Bytes written (in the page cache); never more than the client sent in good chunks. */
  writtenBytes: number;
  /** Bytes known durable: fdatasync'ed, then recorded in the state file. */
  confirmedBytes: number;
  /** A state file exists (resumed, or written by a checkpoint of this call). */
  readonly hasState: boolean;
  /** Writes `data` at `writtenBytes`, checkpointing every `syncEveryBytes`. */
  write(data: Uint8Array): Promise<void>;
  /** Writes `chunks` in order at `writtenBytes` with one `writev`, checkpointing likewise. */
  writeMany(chunks: readonly Uint8Array[]): Promise<void>;
  /** fdatasync the part, then record `writtenBytes` as confirmed (temp file, fsync, rename). */
  checkpoint(): Promise<void>;
  /** Closes the file handle. */
  close(): Promise<void>;
}

/**
 * Opens (or starts) the partial upload of a name. A resumed partial is truncated to its
 * confirmed offset (bytes after it may not have reached the disk before a crash) and its
 * SHA-256 is recomputed from the file. Starting at 0 discards any previous partial. A resume
 * at another offset, or with another declared size, is FAILED_PRECONDITION.
 */
export async function openPartialUpload(options: OpenPartialUploadOptions): Promise<PartialUpload> {
  const { paths, name, sizeBytes, offsetBytes, syncEveryBytes, sync } = options;
  let confirmed = 0;
  if (offsetBytes !== 0) {
    const state = await readPartialState(paths);
    if (state === undefined || state.name !== name)
      throw new NearwireError(
        Code.FailedPrecondition,
        `resume at ${offsetBytes} B but no partial upload of ${JSON.stringify(name)}: start at 0`,
      );
    if (state.confirmedBytes !== offsetBytes || state.sizeBytes !== sizeBytes)
      throw new NearwireError(
        Code.FailedPrecondition,
        `resume at ${offsetBytes} B of ${sizeBytes} B but confirmed ${state.confirmedBytes} B of ${state.sizeBytes} B`,
      );
    confirmed = state.confirmedBytes;
  }
  const handle = await open(
    paths.part,
    constants.O_RDWR | NOFOLLOW | (offsetBytes === 0 ? constants.O_CREAT | constants.O_TRUNC : 0),
    0o600,
  ).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === "ELOOP")
      throw new NearwireError(Code.PermissionDenied, "a partial upload file is a symlink", {
        cause: err,
        reason: "symlink",
      });
    throw localFsError(err, `partial upload of ${JSON.stringify(name)}`);
  });
  try {
    let hash = createHash("sha256");
    if (confirmed > 0) {
      const { size } = await handle.stat();
      if (size < confirmed)
        throw new NearwireError(
          Code.FailedPrecondition,
          `partial file ${size} B < confirmed ${confirmed} B: start at 0`,
        );
      await handle.truncate(confirmed);
      hash = await hashFileRange(handle, 0, confirmed);
    } else {
      // Starting over: a previous partial's state goes (nothing is confirmed until the first
      // checkpoint, and a file smaller than a checkpoint never gets a state file).
      await unlinkIfPresent(paths.state);
    }
    let sinceSync = 0;
    const upload: PartialUpload = {
      handle,
      paths,
      hash,
      writtenBytes: confirmed,
      confirmedBytes: confirmed,
      hasState: confirmed > 0,
      async write(data) {
        let done = 0;
        while (done < data.byteLength) {
          const { bytesWritten } = await handle.write(
            data,
            done,
            data.byteLength - done,
            upload.writtenBytes + done,
          );
          done += bytesWritten;
        }
        upload.writtenBytes += data.byteLength;
        sinceSync += data.byteLength;
        if (sinceSync >= syncEveryBytes) await upload.checkpoint();
      },
      async writeMany(chunks) {
        let total = 0;
        for (const c of chunks) total += c.byteLength;
        let done = 0;
        let rest: readonly Uint8Array[] = chunks;
        while (done < total) {
          const { bytesWritten } = await handle.writev(rest, upload.writtenBytes + done);
          done += bytesWritten;
          if (done < total) rest = remainder(chunks, done);
        }
        upload.writtenBytes += total;
        sinceSync += total;
        if (sinceSync >= syncEveryBytes) await upload.checkpoint();
      },
      async checkpoint() {
        const bytes = upload.writtenBytes;
        if (bytes === upload.confirmedBytes) return;
        if (sync) await handle.datasync();
        await writeState(paths, { name, sizeBytes, confirmedBytes: bytes }, sync);
        (upload as { hasState: boolean }).hasState = true;
        upload.confirmedBytes = bytes;
        sinceSync = upload.writtenBytes - bytes;
      },
      close: () => handle.close(),
    };
    return upload;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** The bytes of `chunks` after the first `skip` bytes, as views (a short `writev`). */
function remainder(chunks: readonly Uint8Array[], skip: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let left = skip;
  for (const c of chunks) {
    if (left >= c.byteLength) {
      left -= c.byteLength;
      continue;
    }
    out.push(left > 0 ? c.subarray(left) : c);
    left = 0;
  }
  return out;
}

/** Removes a partial upload's files (after a failed whole-file check). */
export async function removePartial(paths: PartialPaths): Promise<void> {
  await unlinkIfPresent(paths.state);
  await unlinkIfPresent(paths.part);
}

/**
 * Removes the file (or symlink: never followed) at `path`; a missing one is fine. One
 * `unlink`, where `rm({ force: true })` stats the path first.
 */
export async function unlinkIfPresent(path: string): Promise<void> {
  await unlink(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "ENOENT") throw err;
  });
}

async function writeState(paths: PartialPaths, state: PartialState, sync: boolean): Promise<void> {
  const tmp = `${paths.state}.tmp`;
  const fh = await open(tmp, CREATE, 0o600);
  try {
    await fh.writeFile(JSON.stringify(state));
    if (sync) await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, paths.state);
}
