/** Known-failures files: tests a transport is expected to fail, with the reason. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Reads a known-failures file: one test per line as `<suite>/<test name> # <reason>`; blank
 * lines and lines starting with `#` are ignored. A listed test that passes fails the suite
 * (so the list cannot go stale), as does an entry naming no test (checked at suite end).
 */
export function readKnownFailures(file: string | URL): Map<string, string> {
  const path = file instanceof URL || file.startsWith("file:") ? fileURLToPath(file) : file;
  const out = new Map<string, string>();
  for (const raw of readFileSync(path, "utf8").split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const at = line.indexOf(" # ");
    const id = (at === -1 ? line : line.slice(0, at)).trim();
    const reason = at === -1 ? "" : line.slice(at + 3).trim();
    if (reason === "")
      throw new Error(`known failure "${id}" in ${path} has no reason ("<id> # <reason>")`);
    out.set(id, reason);
  }
  return out;
}
