import { isAbsolute } from "node:path";
import { Code, NearwireError } from "@nearwire/core";
import { MAX_NAME_BYTES, STAGING_DIR_NAME } from "./limits.js";

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

/** A checked name as its directory segments and its last segment. */
export function splitName(name: string): { dir: string[]; base: string } {
  const segments = name.split("/");
  const base = segments.pop() as string;
  return { dir: segments, base };
}
