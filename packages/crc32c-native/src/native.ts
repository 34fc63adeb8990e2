import { fileURLToPath } from "node:url";
import { loadAddon } from "@nearwire/core";

/** The functions of the compiled addon (`native/addon.c`). */
export interface NativeAddon {
  /** CRC-32C of `data` chained from `initial` (default 0), unsigned. */
  crc32c(data: Uint8Array, initial?: number): number;
  /** Same contract, always the portable slice-by-8 C code (for tests on hardware CPUs). */
  crc32cSliceBy8(data: Uint8Array, initial?: number): number;
  /** The implementation the addon picked for this CPU at load. */
  readonly implementation: "sse4.2" | "armv8-crc" | "slice-by-8";
}

/**
 * Path of the compiled addon: `$NEARWIRE_CRC32C_ADDON` when set (tests point it at a missing
 * file to check the error), else `build/Release/nearwire_crc32c.node` in this package.
 */
export const addonPath: string =
  process.env.NEARWIRE_CRC32C_ADDON ??
  fileURLToPath(new URL("../build/Release/nearwire_crc32c.node", import.meta.url));

/** The loaded addon. Importing this module throws FAILED_PRECONDITION `not-built` without it. */
export const native: NativeAddon = loadAddon<NativeAddon>(
  addonPath,
  "crc32c-native",
  "pnpm --filter @nearwire/crc32c-native build:native",
);
