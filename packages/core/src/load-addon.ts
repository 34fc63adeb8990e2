/**
 * loadAddon: loads a native addon, or fails FAILED_PRECONDITION not-built saying how to build it.
 */
import { createRequire } from "node:module";
import { Code } from "./code.js";
import { NearwireError } from "./nearwire-error.js";

/**
 * Loads a compiled Node addon (`.node` file). `locate` is its absolute path, or a function
 * returning it that may throw when there is none (an addon package passes node-gyp-build's
 * `path(packageDir)`: `build/Release/*.node` when compiled in place, else the prebuilt
 * `prebuilds/<platform>-<arch>/*.node` shipped in the tarball that fits this process). When the
 * addon cannot be found or loaded (not built, no prebuild fits, or built for another ABI) throws
 * {@link NearwireError} FAILED_PRECONDITION with reason `not-built`, the error as `cause`, and
 * the message `<name> addon not built: <buildHint>`.
 *
 * ```ts
 * const native = loadAddon<MyAddon>(
 *   () => nodeGypBuild.path(packageDir),
 *   "shm-ring",
 *   "npm rebuild @nearwire/shm-ring",
 * );
 * ```
 */
export function loadAddon<T>(locate: string | (() => string), name: string, buildHint: string): T {
  try {
    const path = typeof locate === "string" ? locate : locate();
    return createRequire(import.meta.url)(path) as T;
  } catch (cause) {
    throw new NearwireError(Code.FailedPrecondition, `${name} addon not built: ${buildHint}`, {
      cause,
      reason: "not-built",
    });
  }
}
