import { lstat } from "node:fs/promises";
import { checkName, splitName } from "../name.js";
import type { StatusReply, StatusRequest } from "../service.js";
import { type PartialState, readPartialState } from "./partial-state.js";
import { partialPaths } from "./partial-upload.js";
import { lstatNoSymlink, notFoundAs, type OpenDir, openDirIn } from "./root-dir.js";
import type { ServedRoot } from "./served-root.js";
import { isLocked } from "./upload-lock.js";

/** The `status` handler: what `served` has under a name (committed file, partial upload). */
export async function status(served: ServedRoot, req: StatusRequest): Promise<StatusReply> {
  const name = checkName(req.name);
  const root = await served.dirs.acquire();
  try {
    // `active` first: an upload call records what it received before it stops being active,
    // so a reply that says not active carries that record. Read the other way round, a call
    // ending in between gave an older partial with active false, and a resume at that offset
    // failed.
    const active = served.active.has(name) || (await isLocked(served.rootId, name));
    const sizeBytes = await committedSize(root, name);
    const partial = await partialOf(await served.dirs.staging(root, false), name);
    return {
      committed: sizeBytes >= 0,
      sizeBytes,
      partialBytes: partial?.confirmedBytes ?? -1,
      partialSizeBytes: partial?.sizeBytes ?? -1,
      active,
    };
  } finally {
    served.dirs.release();
  }
}

/** Size of the file committed under `name`, or -1 (no file, or not a regular file). */
async function committedSize(root: OpenDir, name: string): Promise<number> {
  const { dir: dirSegs, base } = splitName(name);
  const dir = await openDirIn(root, dirSegs, name).catch(notFoundAs(undefined));
  if (dir === undefined) return -1;
  try {
    const st = await lstatNoSymlink(dir, base, name);
    return st?.isFile() ? st.size : -1;
  } finally {
    await dir.close();
  }
}

/**
 * The state of `name`'s partial upload in `staging`, or undefined when there is none: no state
 * file, or one without its part file (left by a crash of an older version; a resume at its
 * offset would fail).
 */
async function partialOf(
  staging: OpenDir | undefined,
  name: string,
): Promise<PartialState | undefined> {
  if (staging === undefined) return undefined;
  const paths = partialPaths(staging.path, name);
  const state = await readPartialState(paths.state);
  if (state === undefined || state.name !== name) return undefined;
  const part = await lstat(paths.part).catch(() => undefined);
  return part?.isFile() === true ? state : undefined;
}
