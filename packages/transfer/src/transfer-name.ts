import { realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { Code, NearwireError } from "@nearwire/core";

/** Longest name accepted, in UTF-8 bytes. */
export const MAX_NAME_BYTES = 1024;

/** The directory under `root` where partial uploads live; no name may start with it. */
export const STAGING_DIR_NAME = ".nearwire-transfer";

/**
 * Checks a transfer name and returns its normalized form: relative, `/`-separated, no empty,
 * `.` or `..` segment, no NUL or backslash, at most {@link MAX_NAME_BYTES}, not inside the
 * staging directory. Anything else is INVALID_ARGUMENT; the name is never "fixed up".
 */
export function checkName(name: unknown): string {
  if (typeof name !== "string" || name.length === 0)
    throw new NearwireError(Code.InvalidArgument, "name is empty");
  const bytes = Buffer.byteLength(name);
  if (bytes > MAX_NAME_BYTES)
    throw new NearwireError(Code.InvalidArgument, `name ${bytes} B > ${MAX_NAME_BYTES} B`);
  if (name.includes("\0")) throw new NearwireError(Code.InvalidArgument, "name contains NUL");
  if (name.includes("\\"))
    throw new NearwireError(Code.InvalidArgument, `name ${JSON.stringify(name)} has a backslash`);
  if (name.startsWith("/") || isAbsolute(name))
    throw new NearwireError(Code.InvalidArgument, `name ${JSON.stringify(name)} is absolute`);
  const segments = name.split("/");
  for (const s of segments) {
    if (s === "" || s === "." || s === "..")
      throw new NearwireError(
        Code.InvalidArgument,
        `name ${JSON.stringify(name)} has a segment ${JSON.stringify(s)}`,
      );
  }
  if (segments[0] === STAGING_DIR_NAME)
    throw new NearwireError(
      Code.InvalidArgument,
      `name ${JSON.stringify(name)} is inside ${STAGING_DIR_NAME}`,
    );
  return segments.join("/");
}

/** True when `path` is `root` or inside it (both already resolved). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * The real path of the deepest existing ancestor of `path`, checked to be inside `realRoot`:
 * a symlink (file or directory) that leads out of the root is PERMISSION_DENIED.
 */
export async function checkInsideRoot(realRoot: string, path: string): Promise<string> {
  let probe = path;
  for (;;) {
    try {
      const real = await realpath(probe);
      if (!isInside(realRoot, real))
        throw new NearwireError(
          Code.PermissionDenied,
          `${relative(realRoot, path)} resolves to ${real}, outside the root ${realRoot}`,
        );
      return real;
    } catch (err) {
      const errno = (err as NodeJS.ErrnoException).code;
      if (errno !== "ENOENT" && errno !== "ENOTDIR") throw NearwireError.from(err);
      const parent = dirname(probe);
      if (parent === probe) throw NearwireError.from(err);
      probe = parent;
    }
  }
}

/** `root/name` for a checked name. */
export function namePath(realRoot: string, name: string): string {
  return join(realRoot, ...name.split("/"));
}
