import { realpathSync, statSync } from "node:fs";
import { Code, NearwireError } from "@nearwire/core";
import { directWritesOption } from "../file-writes.js";
import {
  DEFAULT_CHUNK_BYTES,
  DEFAULT_MAX_CHUNK_BYTES,
  DEFAULT_SYNC_EVERY_BYTES,
} from "../limits.js";
import { localFsError } from "../local-fs-error.js";
import { HeldRoot } from "./held-root.js";

/** Options of `createTransferHandlers`: the served directory and the server's limits. */
export interface TransferHandlersOptions {
  /**
   * Directory served: every name resolves inside it. Must exist: a missing one is NOT_FOUND, a
   * path that is not a directory INVALID_ARGUMENT (both thrown by `createTransferHandlers`).
   */
  root: string;
  /**
   * A partial upload is fdatasync'ed and its confirmed offset written after this many bytes
   * (default 8 MiB), behind the writes, and whenever an upload call ends without committing. A
   * server crash loses at most twice this much progress; a client crash loses none.
   */
  syncEveryBytes?: number;
  /**
   * How much of an upload survives a crash of the server's machine (default `"full"`):
   * - `"full"`: a partial upload is fdatasync'ed and checkpointed every `syncEveryBytes`, the
   *   commit fsyncs the file and its directory;
   * - `"commit"`: no checkpoints while data arrives (a call that ends without committing still
   *   checkpoints what arrived); the commit fsyncs as with `"full"`. A crash loses the partial
   *   upload in progress, never a committed file;
   * - `"none"`: no fsync at all (checkpoints record what was written, not what is durable). A
   *   crash of the machine may lose recent commits; a resume after one is still checked by the
   *   whole-file SHA-256 (a torn partial fails DATA_LOSS and starts over).
   * A crash of the server process alone loses nothing committed in any mode.
   */
  durable?: Durability;
  /**
   * Write uploads past the page cache (default true): whole 512 KiB write batches go to the
   * `.part` file through a descriptor opened with O_DIRECT, where the file system takes it
   * (ext4, xfs, btrfs; tmpfs from Linux 6.6), and the rest through the page cache. It saves the
   * kernel's copy into the page cache: 1.5–1.8 s of CPU per GiB on this project's test VM
   * (ext4), against 0.08 s. A committed file is then not cached: false keeps every write in
   * the page cache, for a server whose readers read a file right after it arrived.
   */
  directWrites?: boolean;
  /** Largest file accepted (default 2^53 − 1); beyond it RESOURCE_EXHAUSTED. */
  maxFileBytes?: number;
  /** Largest chunk accepted (default 4 MiB − 64 KiB); beyond it RESOURCE_EXHAUSTED. */
  maxChunkBytes?: number;
  /** Download chunk size when the client asks for 0 (default 64 KiB). */
  downloadChunkBytes?: number;
}

/** The values of {@link TransferHandlersOptions.durable}, from the most durable. */
export const DURABILITY_MODES = ["full", "commit", "none"] as const;

/** See {@link TransferHandlersOptions.durable}. */
export type Durability = (typeof DURABILITY_MODES)[number];

/** The limits of one served root, with the defaults filled in. */
export interface ServedLimits {
  readonly syncEveryBytes: number;
  readonly durable: Durability;
  readonly directWrites: boolean;
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
  /** The root and staging directories, held open while calls use them. */
  readonly dirs: HeldRoot;
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
  const durable = options.durable ?? "full";
  if (!DURABILITY_MODES.includes(durable))
    throw new NearwireError(
      Code.InvalidArgument,
      `durable ${JSON.stringify(durable)} is not one of ${DURABILITY_MODES.join(", ")}`,
    );
  const directWrites = directWritesOption(options.directWrites);
  return {
    realRoot,
    rootId,
    limits: {
      syncEveryBytes: options.syncEveryBytes ?? DEFAULT_SYNC_EVERY_BYTES,
      durable,
      directWrites,
      maxFileBytes: options.maxFileBytes ?? Number.MAX_SAFE_INTEGER,
      maxChunkBytes: options.maxChunkBytes ?? DEFAULT_MAX_CHUNK_BYTES,
      downloadChunkBytes: options.downloadChunkBytes ?? DEFAULT_CHUNK_BYTES,
    },
    active: new Set<string>(),
    dirs: new HeldRoot(realRoot),
  };
}
