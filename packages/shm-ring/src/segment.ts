import { randomBytes } from "node:crypto";
import { Code, NearwireError } from "@nearwire/core";
import { checkHeader, checkRingBytes, segmentBytesFor, writeHeader } from "@nearwire/ring";
import { native, nativeError } from "./native.js";

/** A mapped segment: two rings of `ringBytes` each. */
export interface Segment {
  /** The mapping; detached (zero length) after `release`. */
  readonly buffer: ArrayBuffer;
  /** Capacity of each ring, bytes. */
  readonly ringBytes: number;
  /** Unmaps the segment (idempotent). The kernel frees it when the last mapping goes. */
  release(): void;
}

/** A segment this process created: `fd` stays open until the peer has mapped it. */
export interface CreatedSegment extends Segment {
  /** File descriptor the peer opens as `/proc/<pid>/fd/<fd>`; -1 once closed. */
  readonly fd: number;
  /** Random 64-bit value (16 hex digits) in the header, echoed in the handshake. */
  readonly nonce: string;
  /**
   * Commits the segment's memory: reserves every page (posix_fallocate) and populates this
   * process's mapping. Call once the peer has accepted the segment, before `closeFd`. Throws
   * RESOURCE_EXHAUSTED (ENOSPC, ENOMEM) when the pages cannot be had.
   */
  commit(): void;
  /** Closes `fd` (call once the peer has mapped the segment, or gave up). Idempotent. */
  closeFd(): void;
}

/**
 * Creates and maps a segment: a memfd (no name in any file system) sealed with
 * `F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL`, or, with `dir`, a 0600 file there that is
 * unlinked before this returns (no seals: see the README's trust model). Only the header page is
 * committed; {@link CreatedSegment.commit} commits the rest. Throws RESOURCE_EXHAUSTED (ENOSPC, ENOMEM,
 * EMFILE), PERMISSION_DENIED (EACCES, EROFS) or FAILED_PRECONDITION (no such directory).
 */
export function createSegment(ringBytes: number, dir = ""): CreatedSegment {
  checkRingBytes(ringBytes);
  let made: { fd: number; buffer: ArrayBuffer };
  try {
    made = native.createSegment(segmentBytesFor(ringBytes), dir);
  } catch (cause) {
    throw nativeError(
      cause,
      `creating a ${segmentBytesFor(ringBytes)} B segment${dir ? ` in ${dir}` : ""}`,
    );
  }
  const nonce = randomBytes(8).toString("hex");
  writeHeader(made.buffer, ringBytes, nonce);
  let fd = made.fd;
  return {
    buffer: made.buffer,
    ringBytes,
    nonce,
    get fd() {
      return fd;
    },
    commit() {
      try {
        native.commitSegment(fd, made.buffer);
      } catch (cause) {
        throw nativeError(cause, `committing a ${made.buffer.byteLength} B segment`);
      }
    },
    closeFd() {
      if (fd >= 0) native.closeFd(fd);
      fd = -1;
    },
    release() {
      if (fd >= 0) native.closeFd(fd);
      fd = -1;
      native.unmap(made.buffer);
    },
  };
}

/**
 * Maps the segment another process created (`/proc/<pid>/fd/<fd>`), reserving its pages
 * first, and checks its header against the handshake: FAILED_PRECONDITION `layout-mismatch` on
 * any difference, UNAVAILABLE when the segment is gone (the peer died), RESOURCE_EXHAUSTED when
 * its pages cannot be reserved (ENOSPC, ENOMEM). Unless `acceptUnsealed`, a segment not sealed
 * against shrinking and growing (a server using `shmDir`, or one that did not seal its memfd)
 * is refused before it is mapped: FAILED_PRECONDITION `unsealed-segment`.
 */
export function attachSegment(
  pid: number,
  fd: number,
  expected: { ringBytes: number; nonce: string },
  acceptUnsealed = false,
): Segment {
  checkRingBytes(expected.ringBytes);
  const path = `/proc/${pid}/fd/${fd}`;
  let buffer: ArrayBuffer;
  try {
    buffer = native.openSegment(path, !acceptUnsealed);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).syscall === "segment seals") {
      throw new NearwireError(
        Code.FailedPrecondition,
        `the server's segment ${path} is not sealed against shrinking and growing, so the server could make this process fault (SIGBUS) on it; a server with shmDir offers such segments: connect with acceptUnsealedSegments: true only if you trust it`,
        { reason: "unsealed-segment" },
      );
    }
    throw nativeError(cause, `opening segment ${path}`, true);
  }
  try {
    checkHeader(buffer, expected);
  } catch (err) {
    native.unmap(buffer);
    throw err;
  }
  return {
    buffer,
    ringBytes: expected.ringBytes,
    release() {
      native.unmap(buffer);
    },
  };
}
