/** The only file that loads the CRC-32C addon (native/addon.c). */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { loadAddon } from "@nearwire/core/transport-kit";

/** The functions of the compiled addon (`native/addon.c`). */
export interface NativeAddon {
  /** CRC-32C of `data` chained from `initial` (default 0), unsigned. */
  crc32c(data: Uint8Array, initial?: number): number;
  /** Same contract, always the portable slice-by-8 C code (for tests on hardware CPUs). */
  crc32cSliceBy8(data: Uint8Array, initial?: number): number;
  /** The implementation the addon picked for this CPU at load. */
  readonly implementation: "sse4.2" | "armv8-crc" | "slice-by-8";
}

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const nodeGypBuild = createRequire(import.meta.url)("node-gyp-build") as {
  path(dir: string): string;
};

/**
 * Where the addon is: `$NEARWIRE_CRC32C_ADDON` when set (tests point it at a missing file
 * to check the error), else the file node-gyp-build picks in this package:
 * `build/Release/nearwire_crc32c.node` when it was compiled here (from source at install, or by
 * `build:native`), else the prebuilt `prebuilds/linux-x64/*.node` shipped in the npm tarball
 * (N-API: one build serves every Node version). Throws when there is none.
 */
function locateAddon(): string {
  return process.env.NEARWIRE_CRC32C_ADDON ?? nodeGypBuild.path(packageDir);
}

/** The loaded addon. Importing this module throws FAILED_PRECONDITION `not-built` without it. */
export const native: NativeAddon = loadAddon<NativeAddon>(
  locateAddon,
  "crc32c-native",
  "no prebuilt binary fits this platform and compiling it at install failed; with python3, make and a C compiler installed, run: npm rebuild @nearwire/crc32c-native",
);
