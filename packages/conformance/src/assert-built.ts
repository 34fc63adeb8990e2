/** assertBuilt(): a factory module that imports its built package refuses a stale build. */
import { type Dirent, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Throws when the package at `packageRoot` has no build output (`dist/`) or a file under `src/`
 * is newer than everything in `dist/`: a conformance factory module written in JavaScript
 * imports the built package (its children then start without the TypeScript loader), so a
 * source change the build has not seen would otherwise be tested as the old code.
 *
 * ```js
 * assertBuilt(new URL("../..", import.meta.url)); // in test/fixtures/<name>-factory.js
 * ```
 */
export function assertBuilt(packageRoot: URL | string): void {
  const root = packageRoot instanceof URL ? fileURLToPath(packageRoot) : packageRoot;
  const built = newest(join(root, "dist"));
  if (built === undefined)
    throw new Error(`${root}: no dist/ — build the package first (pnpm build)`);
  const source = newest(join(root, "src"));
  if (source !== undefined && source.mtimeMs > built.mtimeMs)
    throw new Error(
      `${source.path} is newer than the package's dist/ — build the package first (pnpm build): the conformance factory imports the built package`,
    );
}

/** The most recently modified file under `dir` (undefined: no such directory, or no file). */
function newest(dir: string): { path: string; mtimeMs: number } | undefined {
  let best: { path: string; mtimeMs: number } | undefined;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return undefined;
  }
  for (const e of entries) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    const { mtimeMs } = statSync(path);
    if (best === undefined || mtimeMs > best.mtimeMs) best = { path, mtimeMs };
  }
  return best;
}
