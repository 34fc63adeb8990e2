import { Code, NearwireError } from "@nearwire/core";

/**
 * A failed file-system call on this side (the client's source or destination, the server's
 * root) as a NearwireError whose message starts with `context` (what and which path).
 *
 * Core's errno mapping reads ENOENT and EPIPE as a lost peer (UNAVAILABLE), which is right for
 * a socket and wrong for a file: the CLI retries UNAVAILABLE and the README tells the user to
 * run again. Here a missing file or directory is NOT_FOUND, a directory where a file is needed
 * INVALID_ARGUMENT, and anything core would call UNAVAILABLE is INTERNAL; the other errno
 * values keep core's codes (EACCES PERMISSION_DENIED, ENOSPC RESOURCE_EXHAUSTED, ENOTDIR
 * FAILED_PRECONDITION). A NearwireError passes through unchanged.
 */
export function localFsError(err: unknown, context: string): NearwireError {
  if (err instanceof NearwireError) return err;
  const errno = (err as NodeJS.ErrnoException | undefined)?.code;
  if (errno === "ENOENT")
    return new NearwireError(Code.NotFound, `${context}: no such file or directory (ENOENT)`, {
      cause: err,
    });
  if (errno === "EISDIR")
    return new NearwireError(Code.InvalidArgument, `${context}: is a directory (EISDIR)`, {
      cause: err,
    });
  const e = NearwireError.from(err, Code.Internal, context);
  return e.code === Code.Unavailable
    ? new NearwireError(Code.Internal, e.message, { cause: err })
    : e;
}
