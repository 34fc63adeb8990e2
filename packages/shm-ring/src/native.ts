import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Code, NearwireError } from "@nearwire/core";
import { loadAddon } from "@nearwire/core/transport-kit";

/** The functions of the compiled addon (`native/addon.cc`). */
export interface NativeAddon {
  /**
   * Creates a segment (a memfd sealed against shrinking and growing, or an unlinked 0600 file
   * in `dir` when not empty) and maps it without committing its pages.
   */
  createSegment(bytes: number, dir: string): { fd: number; buffer: ArrayBuffer };
  /** Reserves every page behind `fd` (posix_fallocate) and populates the mapping `buffer`. */
  commitSegment(fd: number, buffer: ArrayBuffer): void;
  /**
   * Opens the file at `path` (`/proc/PID/fd/N`), reserves its pages (posix_fallocate), maps
   * all of it populated, closes the fd. With `requireSeals`, a file not sealed against
   * shrinking and growing throws EPERM with syscall `segment seals` before anything is mapped.
   */
  openSegment(path: string, requireSeals: boolean): ArrayBuffer;
  /** Closes a file descriptor returned by `createSegment`. */
  closeFd(fd: number): void;
  /** Detaches `buffer` (every view becomes empty) and unmaps it. Idempotent. */
  unmap(buffer: ArrayBuffer): void;
  /** Layout version compiled into the addon (`kLayoutVersion` in `native/ring.h`). */
  readonly layoutVersion: number;
  /** Segment header bytes compiled into the addon. */
  readonly headerBytes: number;
}

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const nodeGypBuild = createRequire(import.meta.url)("node-gyp-build") as {
  path(dir: string): string;
};

/**
 * Where the addon is: `$NEARWIRE_SHM_ADDON` when set (tests point it at a missing file
 * to check the error), else the file node-gyp-build picks in this package:
 * `build/Release/nearwire_shm.node` when it was compiled here (from source at install, or by
 * `build:native`), else the prebuilt `prebuilds/linux-x64/*.node` shipped in the npm tarball
 * (N-API: one build serves every Node version). Throws when there is none.
 */
function locateAddon(): string {
  return process.env.NEARWIRE_SHM_ADDON ?? nodeGypBuild.path(packageDir);
}

/** The loaded addon. Importing this module throws FAILED_PRECONDITION `not-built` without it. */
export const native: NativeAddon = loadAddon<NativeAddon>(
  locateAddon,
  "shm-ring",
  "no prebuilt binary fits this platform and compiling it at install failed; with python3, make and a C++ compiler installed, run: npm rebuild @nearwire/shm-ring",
);

/** The addon file that was loaded (see `locateAddon`). */
export const addonPath: string = locateAddon();

/**
 * Maps an errno error thrown by the addon to a NearwireError with core's one errno mapping
 * (`NearwireError.from`: ENOSPC/ENOMEM/EMFILE/EFBIG/EFAULT → RESOURCE_EXHAUSTED,
 * EACCES/EPERM/EROFS → PERMISSION_DENIED, ENOENT/ESRCH → UNAVAILABLE `peer-closed`, ENOTDIR →
 * FAILED_PRECONDITION, anything else → INTERNAL), except that ENOENT/ESRCH when creating a
 * segment (not `opening` a peer's) means no such directory: FAILED_PRECONDITION.
 */
export function nativeError(cause: unknown, what: string, opening = false): NearwireError {
  const errno = (cause as NodeJS.ErrnoException).code;
  if (!opening && (errno === "ENOENT" || errno === "ESRCH"))
    return new NearwireError(
      Code.FailedPrecondition,
      `${what}: ${(cause as Error)?.message ?? String(cause)}`,
      {
        cause,
      },
    );
  return NearwireError.from(cause, Code.Internal, what);
}
