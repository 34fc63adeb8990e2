import { createRequire } from "node:module";
import { Code } from "./code.js";
import { NearwireError } from "./nearwire-error.js";

/**
 * Loads a compiled Node addon (`.node` file) from the absolute `path`. When it cannot be
 * loaded (not built, or built for another Node ABI) throws {@link NearwireError}
 * FAILED_PRECONDITION with reason `not-built`, the load error as `cause`, and the message
 * `<name> addon not built: <buildHint>`.
 *
 * ```ts
 * const native = loadAddon<MyAddon>(addonPath, "shm-ring", "pnpm --filter @nearwire/shm-ring build:native");
 * ```
 */
export function loadAddon<T>(path: string, name: string, buildHint: string): T {
  try {
    return createRequire(import.meta.url)(path) as T;
  } catch (cause) {
    throw new NearwireError(Code.FailedPrecondition, `${name} addon not built: ${buildHint}`, {
      cause,
      reason: "not-built",
    });
  }
}
