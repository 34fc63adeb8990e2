import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const pkg = fileURLToPath(new URL("..", import.meta.url));

/** The README's ```ts blocks by info string: "" (main), "worker", "greeter", "pool". */
function blocks(): Record<string, string> {
  const md = readFileSync(join(pkg, "README.md"), "utf8");
  const out: Record<string, string> = {};
  for (const m of md.matchAll(/```ts( \w+)?\n([\s\S]*?)```/g))
    out[(m[1] ?? "").trim()] = m[2] as string;
  return out;
}

/**
 * Writes the README's worker and greeter blocks and `main` (a block name) as `<file>` into a
 * temp folder next to the package, runs `<file>` with tsx and returns its stdout.
 */
function runExample(main: string, file: string): string {
  const b = blocks();
  const src = (code: string | undefined): string => {
    assert.ok(code !== undefined);
    return code.replaceAll('"@nearwire/worker"', JSON.stringify(join(pkg, "src/index.ts")));
  };
  const dir = mkdtempSync(join(pkg, ".readme-"));
  try {
    writeFileSync(join(dir, file), src(b[main]));
    writeFileSync(join(dir, "greeter-worker.ts"), src(b.worker));
    writeFileSync(join(dir, "greeter.ts"), src(b.greeter));
    // The worker entry the example names: registers tsx, then loads the TypeScript file.
    writeFileSync(
      join(dir, "greeter-worker.js"),
      'import { register } from "tsx/esm/api";\nregister();\nawait import("./greeter-worker.ts");\n',
    );
    return execFileSync(process.execPath, ["--import", "tsx", join(dir, file)], {
      cwd: pkg,
      encoding: "utf8",
      timeout: 30_000,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("README example", () => {
  it("runs main thread + worker + service files", () => {
    assert.match(runExample("", "example.ts"), /hello, Ada/);
  });

  it("the pool example spreads four calls over two workers and exits (await using)", () => {
    assert.equal(
      runExample("pool", "pool.ts").trim(),
      "hello, Ada; hello, Grace; hello, Edsger; hello, Barbara",
    );
  });
});
