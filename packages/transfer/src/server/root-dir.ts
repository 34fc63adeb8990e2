import { constants, existsSync, type Stats } from "node:fs";
import { type FileHandle, lstat, mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import { Code, NearwireError } from "@nearwire/core";
import { localFsError } from "../local-fs-error.js";

/**
 * Lookups inside the served root that follow no symlink, without a check-then-use race.
 *
 * Node has no `openat`. On Linux, `/proc/self/fd/N` names the directory that descriptor N has
 * open (a "magic link" to the open file, not to a path), so `open("/proc/self/fd/N/seg",
 * O_NOFOLLOW | O_DIRECTORY)` is `openat(N, "seg", O_NOFOLLOW | O_DIRECTORY)`: the kernel looks
 * `seg` up in the very directory N, and refuses it if it is a symlink. A name is opened one
 * segment at a time from a descriptor of the root, so no component is ever resolved through a
 * path that someone could swap between a check and the use: a symlink anywhere below the root
 * is PERMISSION_DENIED (reason `symlink`), wherever it points. Files, `mkdir` and `rename` use
 * the same `/proc/self/fd/N/<base>` form against the directory descriptor they were checked in.
 *
 * Where `/proc/self/fd` does not exist (not Linux) the same calls fall back to plain paths:
 * each segment is still opened with `O_NOFOLLOW`, but later calls re-resolve the path, so a
 * swap between two calls is not excluded there.
 */

/** True when `/proc/self/fd/N` paths work here (Linux): lookups are race-free. */
export const FD_PATHS = existsSync("/proc/self/fd");

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** A directory opened inside the root (or the root itself); `path` is valid while it is open. */
export interface OpenDir {
  /** `/proc/self/fd/N` (Linux), or the directory's path (elsewhere). */
  readonly path: string;
  readonly handle: FileHandle;
  close(): Promise<void>;
}

function wrap(handle: FileHandle, plainPath: string): OpenDir {
  return {
    path: FD_PATHS ? `/proc/self/fd/${handle.fd}` : plainPath,
    handle,
    close: () => handle.close(),
  };
}

/** Opens the root directory itself (already a real path). NOT_FOUND when it is gone. */
export async function openRoot(realRoot: string): Promise<OpenDir> {
  try {
    return wrap(await open(realRoot, constants.O_RDONLY | constants.O_DIRECTORY), realRoot);
  } catch (err) {
    throw localFsError(err, `served root ${JSON.stringify(realRoot)}`);
  }
}

/**
 * Opens `segments` below `parent` one at a time, following no symlink; with `create`, missing
 * directories are made (mode 0755, or `mode`). `parent` stays open (the caller closes it);
 * `shown` is the name used in error messages. With no `segments` it is `parent` itself
 * (closing that view does not close `parent`).
 */
export async function openDirIn(
  parent: OpenDir,
  segments: readonly string[],
  shown: string,
  options: { create?: boolean; mode?: number } = {},
): Promise<OpenDir> {
  let cur = parent;
  let plain = parent.path;
  try {
    // `parent` itself; closing this view leaves it open.
    if (segments.length === 0) return { ...parent, close: async () => {} };
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i] as string;
      const at = `${cur.path}/${seg}`;
      let handle: FileHandle;
      try {
        handle = await openOrMake(at, options);
      } catch (err) {
        throw await lookupError(err, at, segments.slice(0, i + 1).join("/"), shown);
      }
      plain = join(plain, seg);
      if (cur !== parent) await cur.close();
      cur = wrap(handle, plain);
    }
    return cur;
  } catch (err) {
    if (cur !== parent) await cur.close().catch(() => {});
    throw localFsError(err, JSON.stringify(shown));
  }
}

/**
 * Opens the directory `at` (never through a symlink); with `create`, a missing one is made
 * first. The directory usually exists, so it is opened before any `mkdir` is tried: one call,
 * not two.
 */
async function openOrMake(
  at: string,
  options: { create?: boolean; mode?: number },
): Promise<FileHandle> {
  try {
    return await open(at, DIR_FLAGS);
  } catch (err) {
    if (options.create !== true || (err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  await mkdir(at, { mode: options.mode ?? 0o755 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "EEXIST") throw err;
  });
  return open(at, DIR_FLAGS);
}

/** Opens the file `base` in `dir` (never through a symlink) with `flags` and `mode`. */
export async function openFileIn(
  dir: OpenDir,
  base: string,
  flags: number,
  shown: string,
  mode = 0o600,
): Promise<FileHandle> {
  const at = `${dir.path}/${base}`;
  try {
    return await open(at, flags | constants.O_NOFOLLOW, mode);
  } catch (err) {
    throw await lookupError(err, at, shown, shown);
  }
}

/**
 * What `dir/base` is (`lstat`), or undefined when nothing is there; a symlink is
 * PERMISSION_DENIED (reason `symlink`): the one check of a last segment that is not opened
 * (status, an upload's target name).
 */
export async function lstatNoSymlink(
  dir: OpenDir,
  base: string,
  shown: string,
): Promise<Stats | undefined> {
  const st = await lstat(pathIn(dir, base)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw localFsError(err, JSON.stringify(shown));
  });
  if (st?.isSymbolicLink())
    throw new NearwireError(
      Code.PermissionDenied,
      `${JSON.stringify(shown)} is a symlink (none are followed below the root)`,
      { reason: "symlink" },
    );
  return st;
}

/** `dir/base` as a path for calls that take one (`rename`, `stat`): resolved in `dir`. */
export function pathIn(dir: OpenDir, base: string): string {
  return `${dir.path}/${base}`;
}

/**
 * Maps a failed lookup: a symlink is PERMISSION_DENIED (reason `symlink`); a file where a
 * directory should be is INVALID_ARGUMENT; a missing one NOT_FOUND. The decision was the
 * kernel's, at `open`; `lstat` here only picks the error code. O_NOFOLLOW on a symlink is
 * ELOOP, but with O_DIRECTORY Linux says ENOTDIR, as for a regular file: then only a regular
 * file (or other non-directory) that is still there is INVALID_ARGUMENT; a symlink, or a
 * directory (it was swapped since the open), is the symlink case.
 */
async function lookupError(
  err: unknown,
  at: string,
  prefix: string,
  shown: string,
): Promise<NearwireError> {
  const errno = (err as NodeJS.ErrnoException).code;
  if (errno === "ELOOP" || errno === "ENOTDIR") {
    const notDir =
      errno === "ENOTDIR" &&
      (await lstat(at).then(
        (st) => !st.isSymbolicLink() && !st.isDirectory(),
        () => false,
      ));
    if (!notDir)
      return new NearwireError(
        Code.PermissionDenied,
        `${JSON.stringify(shown)}: ${JSON.stringify(prefix)} is a symlink (none are followed below the root)`,
        { cause: err, reason: "symlink" },
      );
    return new NearwireError(
      Code.InvalidArgument,
      `${JSON.stringify(shown)}: ${JSON.stringify(prefix)} is not a directory`,
      { cause: err },
    );
  }
  if (errno === "ENOENT")
    return new NearwireError(Code.NotFound, `${JSON.stringify(shown)} not found`, { cause: err });
  if (errno === "EISDIR")
    return new NearwireError(Code.InvalidArgument, `${JSON.stringify(shown)} is a directory`, {
      cause: err,
    });
  return localFsError(err, JSON.stringify(shown));
}

/** A catch handler: NOT_FOUND becomes `value`, anything else is rethrown. */
export function notFoundAs<T>(value: T): (err: unknown) => T {
  return (err) => {
    if (err instanceof NearwireError && err.code === Code.NotFound) return value;
    throw err;
  };
}
