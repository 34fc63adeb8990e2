import { fileURLToPath } from "node:url";
import { loadAddon } from "@nearwire/core";

/** Credentials of a Unix socket's peer, as `SO_PEERCRED` reports them. */
export interface PeerCredentials {
  /** Effective user id of the peer process when it connected. */
  readonly uid: number;
  /** Effective group id of the peer process when it connected. */
  readonly gid: number;
  /** Process id of the peer (in this process's pid namespace; 0 if it is outside it). */
  readonly pid: number;
}

/** The functions of the compiled addon (`native/addon.c`). */
export interface NativeAddon {
  /**
   * `getsockopt(fd, SOL_SOCKET, SO_PEERCRED)` of a connected Unix socket. Throws an Error whose
   * `code` is the errno name (`EBADF`, `ENOTSOCK`, `ENOTCONN`, …).
   */
  peerCredentials(fd: number): PeerCredentials;
}

/**
 * Path of the compiled addon: `$NEARWIRE_PEERCRED_ADDON` when set (tests point it at a missing
 * file to check the error), else `build/Release/nearwire_peercred.node` in this package.
 */
export const addonPath: string =
  process.env.NEARWIRE_PEERCRED_ADDON ??
  fileURLToPath(new URL("../build/Release/nearwire_peercred.node", import.meta.url));

/** The loaded addon. Importing this module throws FAILED_PRECONDITION `not-built` without it. */
export const native: NativeAddon = loadAddon<NativeAddon>(
  addonPath,
  "peercred",
  "pnpm --filter @nearwire/peercred build:native",
);
