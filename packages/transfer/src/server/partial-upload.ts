import { createHash, type Hash } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, open, unlink } from "node:fs/promises";
import { Code, NearwireError } from "@nearwire/core";
import { FileWrites } from "../file-writes.js";
import { hashFileRange } from "../hash-file-range.js";
import { localFsError } from "../local-fs-error.js";
import { PartialStateWriter, readPartialState } from "./partial-state.js";
import { WrittenPrefix } from "./written-prefix.js";

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
  /** Whole write batches go past the page cache (see `FileWrites`). */
  directWrites: boolean;
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
  /**
   * Writes `data` where the last write's data ends (`writtenBytes` once every write before it
   * ended). Every `syncEveryBytes` a checkpoint starts behind the writes (they go on while the
   * disk syncs); one still running when the next is due is waited for. A failed checkpoint
   * fails the next write. `done` is called once the write (and a wait for a checkpoint) ended,
   * with the error if it failed (the chunk writer's `BatchSink`).
   */
  write(data: Uint8Array, done: (err: unknown) => void): void;
  /**
   * Writes that may run at once (the chunk writer's `BatchSink`; see `FileWrites`).
   * `writtenBytes` only counts a write once every one before it ended too.
   */
  readonly writesInFlight: number;
  /** fdatasync the part, then record `writtenBytes` as confirmed (temp file, rename). */
  checkpoint(): Promise<void>;
  /** Waits for a checkpoint running behind the writes; rejects with its failure. */
  settled(): Promise<void>;
  /** Closes the file handle (after a checkpoint running behind the writes). */
  close(): Promise<void>;
}

/**
 * Opens (or starts) the partial upload of a name. A resumed partial is truncated to its
 * confirmed offset (bytes after it may not have reached the disk before a crash) and its
 * SHA-256 is recomputed from the file. Starting at 0 discards any previous partial. A resume
 * at another offset, or with another declared size, is FAILED_PRECONDITION.
 */
export async function openPartialUpload(options: OpenPartialUploadOptions): Promise<PartialUpload> {
  const { paths, name, sizeBytes, offsetBytes, syncEveryBytes, sync, directWrites } = options;
  let confirmed = 0;
  if (offsetBytes !== 0) {
    const state = await readPartialState(paths.state);
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
  const handle = await openPart(paths, name, offsetBytes);
  let writes: FileWrites | undefined;
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
    }
    const fileWrites = await FileWrites.open(handle.fd, directWrites);
    writes = fileWrites;
    let sinceSync = 0;
    const prefix = new WrittenPrefix(confirmed);
    /** The checkpoint running behind the writes, if any (it never rejects). */
    let behind: Promise<void> | undefined;
    let failure: { error: unknown } | undefined;
    const stateFile = new PartialStateWriter(paths.state, name, sizeBytes);
    /** fdatasync, then the state: `at` B are confirmed. */
    const confirm = async (at: number): Promise<void> => {
      if (sync) await handle.datasync();
      await stateFile.write(at);
      (upload as { hasState: boolean }).hasState = true;
      if (at > upload.confirmedBytes) upload.confirmedBytes = at;
    };
    const settled = async (): Promise<void> => {
      if (behind !== undefined) await behind;
      if (failure !== undefined) throw failure.error;
    };
    /** Starts a checkpoint behind the writes, once the one before it (if running) settled. */
    const startCheckpoint = async (): Promise<void> => {
      // The one before still running: wait for it (at most two intervals unconfirmed).
      await settled();
      const at = upload.writtenBytes;
      sinceSync = 0;
      behind = confirm(at).then(
        () => {
          behind = undefined;
        },
        (error: unknown) => {
          behind = undefined;
          failure = { error };
        },
      );
    };
    const upload: PartialUpload = {
      handle,
      paths,
      hash,
      writtenBytes: confirmed,
      confirmedBytes: confirmed,
      hasState: confirmed > 0,
      writesInFlight: fileWrites.writesInFlight,
      write(data, done) {
        if (failure !== undefined) {
          const { error } = failure;
          process.nextTick(done, error);
          return;
        }
        const mine = prefix.begin(data.byteLength);
        fileWrites.write(data, mine.at, (err) => {
          if (err !== null) return done(err); // writtenBytes stays before it, whatever ends later
          const added = mine.ended();
          upload.writtenBytes += added;
          sinceSync += added;
          if (sinceSync < syncEveryBytes) return done(null);
          startCheckpoint().then(() => done(null), done);
        });
      },
      async checkpoint() {
        await settled();
        const bytes = upload.writtenBytes;
        if (bytes === upload.confirmedBytes) return;
        await confirm(bytes);
        sinceSync = upload.writtenBytes - bytes;
      },
      settled,
      async close() {
        await behind;
        await stateFile.close();
        await fileWrites.close();
        await handle.close();
      },
    };
    return upload;
  } catch (err) {
    await writes?.close();
    await handle.close();
    throw err;
  }
}

/**
 * Opens the `.part` file: at 0 a new one, else the partial upload's existing one.
 *
 * A state file never outlives its part file (a checkpoint writes it while the part exists, a
 * commit or a failed check removes it before the part), so where no part file exists there is
 * no state to discard: a new upload tries O_EXCL first and only when a previous partial is
 * there removes its state and truncates it. Per small upload that is one `open`, where an
 * `unlink` of the state that is not there (and its error) came first before.
 */
async function openPart(
  paths: PartialPaths,
  name: string,
  offsetBytes: number,
): Promise<FileHandle> {
  const shown = `partial upload of ${JSON.stringify(name)}`;
  const RDWR = constants.O_RDWR | NOFOLLOW;
  const failed = (err: unknown): never => {
    const errno = (err as NodeJS.ErrnoException).code;
    if (errno === "ELOOP")
      throw new NearwireError(Code.PermissionDenied, "a partial upload file is a symlink", {
        cause: err,
        reason: "symlink",
      });
    if (errno === "ENOENT" && offsetBytes !== 0)
      throw new NearwireError(Code.FailedPrecondition, `${shown} has no file: start at 0`, {
        cause: err,
      });
    throw localFsError(err, shown);
  };
  if (offsetBytes !== 0) return open(paths.part, RDWR).catch(failed);
  try {
    return await open(paths.part, RDWR | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") failed(err);
  }
  // Starting over: the previous partial's state goes first (nothing is confirmed until the
  // first checkpoint, and a file smaller than a checkpoint never gets a state file).
  await unlinkIfPresent(paths.state).catch(failed);
  return open(paths.part, RDWR | constants.O_CREAT | constants.O_TRUNC, 0o600).catch(failed);
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
