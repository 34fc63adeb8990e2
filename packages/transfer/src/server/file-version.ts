import type { BigIntStats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { Code, NearwireError } from "@nearwire/core";

/**
 * How long a file's last change must lie in the past before a read of it starts, ms. File
 * times come from the kernel's coarse clock (one tick: 1–10 ms); a write in the same tick as
 * the stat would leave mtime and ctime as they were. Once the clock is a few ticks past them,
 * any later write moves them.
 */
export const SETTLE_MS = 20;
/** Longest wait for a file to settle, ms; a file written all the time is read anyway. */
const SETTLE_MAX_WAIT_MS = 1000;

/**
 * The version of an open file to read: its `fstat` (size, mtime, ctime in ns) once its last
 * change is {@link SETTLE_MS} old (it waits while the file was changed just now, at most 1 s).
 */
export async function settledVersion(handle: FileHandle): Promise<BigIntStats> {
  const until = Date.now() + SETTLE_MAX_WAIT_MS;
  for (;;) {
    const st = await handle.stat({ bigint: true });
    const changedMs = Math.max(Number(st.mtimeMs), Number(st.ctimeMs));
    const wait = changedMs + SETTLE_MS - Date.now();
    if (wait <= 0 || Date.now() + wait > until) return st;
    await sleep(wait);
  }
}

/**
 * Throws ABORTED `changed-during-read` when the file behind `handle` is no longer the version
 * `before` (size, mtime or ctime moved): the bytes read since may mix two versions.
 */
export async function checkUnchanged(
  handle: FileHandle,
  before: BigIntStats,
  name: string,
): Promise<void> {
  const now = await handle.stat({ bigint: true });
  if (now.size === before.size && now.mtimeNs === before.mtimeNs && now.ctimeNs === before.ctimeNs)
    return;
  throw changedError(name);
}

/** ABORTED `changed-during-read` for `name`, with the hint to download it again. */
export function changedError(name: string): NearwireError {
  return new NearwireError(
    Code.Aborted,
    `${JSON.stringify(name)} changed while it was read; download it again`,
    { reason: "changed-during-read" },
  );
}
