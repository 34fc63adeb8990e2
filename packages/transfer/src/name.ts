import { isAbsolute } from "node:path";
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
