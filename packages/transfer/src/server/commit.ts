import { timingSafeEqual } from "node:crypto";
import { rename } from "node:fs/promises";
import { Code, NearwireError } from "@nearwire/core";
import { splitName } from "../name.js";
import { plainBytes } from "../plain-bytes.js";
import type { UploadReply } from "../service.js";
import { type PartialUpload, removePartial, unlinkIfPresent } from "./partial-upload.js";
import { lstatNoSymlink, type OpenDir, openDirIn, pathIn } from "./root-dir.js";

/**
 * Commits a fully received upload: checks its size against `declared` and its SHA-256 against
 * the client's, then fsync, rename under `name` (in a directory opened without following a
 * symlink) and fsync of that directory (both fsyncs only when `sync`: `durable` is not
 * `"none"`). A SHA-256 mismatch drops the partial (DATA_LOSS).
 */
export async function commitUpload(
  partial: PartialUpload,
  root: OpenDir,
  name: string,
  declared: number,
  sha256: Uint8Array,
  sync: boolean,
): Promise<UploadReply> {
  await partial.settled(); // a checkpoint behind the writes: done (and no state after this)
  const size = partial.writtenBytes;
  if (declared >= 0 && size !== declared)
    throw new NearwireError(
      Code.InvalidArgument,
      `file ended at ${size} B, declared ${declared} B`,
    );
  const digest = partial.hash.digest();
  if (sha256.byteLength !== 32 || !timingSafeEqual(digest, sha256)) {
    // Which chunk is bad cannot be told: the next upload starts over.
    await partial.close().catch(() => {});
    await removePartial(partial.paths);
    partial.writtenBytes = partial.confirmedBytes; // nothing to checkpoint
    throw new NearwireError(Code.DataLoss, `SHA-256 of ${size} B does not match the client's`);
  }
  if (sync) await partial.handle.sync();
  await partial.handle.close();
  partial.confirmedBytes = size;
  // The final directory is opened (made) segment by segment without following a symlink;
  // the rename names it by descriptor, so it lands in the directory that was checked.
  const target = splitName(name);
  const dir = await openDirIn(root, target.dir, name, { create: true });
  try {
    // A symlink planted between this check and the rename is replaced by the file: rename
    // never follows one, so nothing outside the root is touched.
    await lstatNoSymlink(dir, target.base, name);
    // The state goes before the part file becomes the committed file: a state never outlives
    // its part (see `openPart`). There is none for an upload that started at 0 and never
    // reached a checkpoint: no call then.
    if (partial.hasState) await unlinkIfPresent(partial.paths.state);
    await rename(partial.paths.part, pathIn(dir, target.base));
    if (sync) await dir.handle.sync();
  } finally {
    await dir.close();
  }
  return { committed: true, sizeBytes: size, sha256: plainBytes(digest) };
}
