import { realpathSync, statSync } from "node:fs";
import { Code, NearwireError } from "@nearwire/core";
import {
  DEFAULT_CHUNK_BYTES,
  DEFAULT_MAX_CHUNK_BYTES,
  DEFAULT_SYNC_EVERY_BYTES,
} from "../limits.js";
import { localFsError } from "../local-fs-error.js";
import { type OpenDir, openRoot } from "./root-dir.js";

/** Options of `createTransferHandlers`: the served directory and the server's limits. */
export interface TransferHandlersOptions {
  /**
   * Directory served: every name resolves inside it. Must exist: a missing one is NOT_FOUND, a
   * path that is not a directory INVALID_ARGUMENT (both thrown by `createTransferHandlers`).
   */
  root: string;
  /**
   * A partial upload is fdatasync'ed and its confirmed offset written after this many bytes
   * (default 8 MiB), and whenever an upload call ends without committing. A server crash loses
   * at most this much progress; a client crash loses none.
   */
  syncEveryBytes?: number;
  /** Largest file accepted (default 2^53 − 1); beyond it RESOURCE_EXHAUSTED. */
  maxFileBytes?: number;
  /** Largest chunk accepted (default 4 MiB − 64 KiB); beyond it RESOURCE_EXHAUSTED. */
  maxChunkBytes?: number;
  /** Download chunk size when the client asks for 0 (default 64 KiB). */
  downloadChunkBytes?: number;
}

/** The limits of one served root, with the defaults filled in. */
export interface ServedLimits {
  readonly syncEveryBytes: number;
  readonly maxFileBytes: number;
  readonly maxChunkBytes: number;
  readonly downloadChunkBytes: number;
}

/**
 * What the status, upload and download handlers of one server share: the root directory,
 * the names being uploaded in this process, and the limits.
 */
export interface ServedRoot {
  /** The root as a real path (symlinks in the given path resolved once, at start). */
  readonly realRoot: string;
  /** `<dev>:<ino>` of the root: names the root in cross-process upload locks. */
  readonly rootId: string;
  readonly limits: ServedLimits;
  /** Names with an upload running in this process (the cross-process lock is `upload-lock.ts`). */
  readonly active: Set<string>;
  /** Opens the root directory (the caller closes it). */
  open(): Promise<OpenDir>;
}

/** Resolves `options.root` (see {@link TransferHandlersOptions.root}) and fills in the limits' defaults. */
export function createServedRoot(options: TransferHandlersOptions): ServedRoot {
  const shown = `root ${JSON.stringify(options.root)}`;
  let realRoot: string;
  let rootId: string;
  try {
    realRoot = realpathSync(options.root);
    const st = statSync(realRoot);
    if (!st.isDirectory())
      throw new NearwireError(Code.InvalidArgument, `${shown} is not a directory`);
    rootId = `${st.dev}:${st.ino}`;
  } catch (err) {
    throw localFsError(err, shown);
  }
  return {
    realRoot,
    rootId,
    limits: {
      syncEveryBytes: options.syncEveryBytes ?? DEFAULT_SYNC_EVERY_BYTES,
      maxFileBytes: options.maxFileBytes ?? Number.MAX_SAFE_INTEGER,
      maxChunkBytes: options.maxChunkBytes ?? DEFAULT_MAX_CHUNK_BYTES,
      downloadChunkBytes: options.downloadChunkBytes ?? DEFAULT_CHUNK_BYTES,
    },
    active: new Set<string>(),
    open: () => openRoot(realRoot),
  };
}
