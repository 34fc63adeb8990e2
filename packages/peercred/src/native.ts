/** The only file that loads the SO_PEERCRED addon. */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { loadAddon } from "@nearwire/core/transport-kit";

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

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const nodeGypBuild = createRequire(import.meta.url)("node-gyp-build") as {
  path(dir: string): string;
};

/**
 * Where the addon is: `$NEARWIRE_PEERCRED_ADDON` when set (tests point it at a missing file
 * to check the error), else the file node-gyp-build picks in this package:
 * `build/Release/nearwire_peercred.node` when it was compiled here (from source at install, or by
 * `build:native`), else the prebuilt `prebuilds/linux-x64/*.node` shipped in the npm tarball
 * (N-API: one build serves every Node version). Throws when there is none.
 */
function locateAddon(): string {
  return process.env.NEARWIRE_PEERCRED_ADDON ?? nodeGypBuild.path(packageDir);
}

/** The loaded addon. Importing this module throws FAILED_PRECONDITION `not-built` without it. */
export const native: NativeAddon = loadAddon<NativeAddon>(
  locateAddon,
  "peercred",
  "no prebuilt binary fits this platform and compiling it at install failed; with python3, make and a C compiler installed, run: npm rebuild @nearwire/peercred",
);
