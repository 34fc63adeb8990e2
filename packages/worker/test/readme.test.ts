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

describe("README example", () => {
  it("runs main thread + worker + service files", () => {
    const b = blocks();
    const src = (code: string | undefined): string => {
      assert.ok(code !== undefined);
      return code.replaceAll('"@nearwire/worker"', JSON.stringify(join(pkg, "src/index.ts")));
    };
    const dir = mkdtempSync(join(pkg, ".readme-"));
    try {
      writeFileSync(join(dir, "example.ts"), src(b[""]));
      writeFileSync(join(dir, "greeter-worker.ts"), src(b.worker));
      writeFileSync(join(dir, "greeter.ts"), src(b.greeter));
      // The worker entry the example names: registers tsx, then loads the TypeScript file.
      writeFileSync(
        join(dir, "greeter-worker.js"),
        'import { register } from "tsx/esm/api";\nregister();\nawait import("./greeter-worker.ts");\n',
      );
      const out = execFileSync(process.execPath, ["--import", "tsx", join(dir, "example.ts")], {
        cwd: pkg,
        encoding: "utf8",
        timeout: 30_000,
      });
      assert.match(out, /hello, Ada/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the pool example spreads four calls over two workers and exits (await using)", () => {
    const b = blocks();
    const src = (code: string | undefined): string => {
      assert.ok(code !== undefined);
      return code.replaceAll('"@nearwire/worker"', JSON.stringify(join(pkg, "src/index.ts")));
    };
    const dir = mkdtempSync(join(pkg, ".readme-"));
    try {
      writeFileSync(join(dir, "pool.ts"), src(b.pool));
      writeFileSync(join(dir, "greeter-worker.ts"), src(b.worker));
      writeFileSync(join(dir, "greeter.ts"), src(b.greeter));
      writeFileSync(
        join(dir, "greeter-worker.js"),
        'import { register } from "tsx/esm/api";\nregister();\nawait import("./greeter-worker.ts");\n',
      );
      const out = execFileSync(process.execPath, ["--import", "tsx", join(dir, "pool.ts")], {
        cwd: pkg,
        encoding: "utf8",
        timeout: 30_000,
      });
      assert.equal(out.trim(), "hello, Ada; hello, Grace; hello, Edsger; hello, Barbara");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
