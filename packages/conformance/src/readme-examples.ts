/** Runs the ```ts examples of a README as tests. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The code of every ```` ```ts ```` block in a README, in order. Blocks with an info string
 * after `ts` (```` ```ts server ````) are not included. Throws if there is none, so a README
 * that loses its example fails its test.
 */
export function readmeExamples(readmeUrl: URL): string[] {
  const md = readFileSync(fileURLToPath(readmeUrl), "utf8");
  const blocks = [...md.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  if (blocks.length === 0) throw new Error(`${readmeUrl.pathname} has no ts example`);
  return blocks;
}

/** Options of {@link runReadmeExample}. */
export interface RunReadmeExampleOptions {
  /**
   * Module specifiers to point at the package's own sources, e.g.
   * `{ "@nearwire/frame": "src/index.ts" }` (paths relative to the package directory). Every
   * quoted occurrence (`"@nearwire/frame"`, in imports and `import type`) is replaced.
   */
  modules: Record<string, string>;
  /** Arguments after the example file. Default none. */
  args?: string[];
  /** Environment of the child. Default this process's. */
  env?: NodeJS.ProcessEnv;
  /** Kills the child after this many milliseconds. Default 30,000. */
  timeoutMs?: number;
}

/**
 * Runs one README example as `node --import tsx example.ts` in a child process and returns its
 * stdout. The file is written into a fresh `.readme-*` directory inside the package (so the
 * package's `"type": "module"` and `node_modules` apply) and removed afterwards. Throws (with the
 * child's stderr) when the example exits non-zero, i.e. when any assertion in it fails.
 *
 * ```ts
 * const pkg = new URL("..", import.meta.url);
 * for (const code of readmeExamples(new URL("README.md", pkg)))
 *   runReadmeExample(pkg, code, { modules: { "@nearwire/frame": "src/index.ts" } });
 * ```
 */
export function runReadmeExample(
  packageUrl: URL,
  code: string,
  options: RunReadmeExampleOptions,
): string {
  const pkg = fileURLToPath(packageUrl);
  let source = code;
  for (const [specifier, path] of Object.entries(options.modules))
    source = source.replaceAll(JSON.stringify(specifier), JSON.stringify(join(pkg, path)));
  const dir = mkdtempSync(join(pkg, ".readme-"));
  try {
    const file = join(dir, "example.ts");
    writeFileSync(file, source);
    return execFileSync(process.execPath, ["--import", "tsx", file, ...(options.args ?? [])], {
      cwd: pkg,
      encoding: "utf8",
      env: options.env ?? process.env,
      timeout: options.timeoutMs ?? 30_000,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
