import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

describe("README example", () => {
  it("runs and prints the decoded frames", () => {
    const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(code !== undefined);
    // Inside the package, so that "type": "module" and its node_modules apply.
    const dir = mkdtempSync(fileURLToPath(new URL("../.readme-", import.meta.url)));
    try {
      const file = join(dir, "example.ts");
      // Resolve the package's own source instead of its built dist.
      const src = fileURLToPath(new URL("../src/index.ts", import.meta.url));
      writeFileSync(file, code.replace('from "@nearwire/frame"', `from ${JSON.stringify(src)}`));
      const out = execFileSync(process.execPath, ["--import", "tsx", file], {
        cwd: fileURLToPath(new URL("..", import.meta.url)),
        encoding: "utf8",
      });
      assert.match(out, /hello \{ version: 1, flags: 0, maxFrameBytes: 65536 \}/);
      assert.match(out, /frame 128 2 bytes/);
      assert.match(out, /crc32c: (hardware|portable)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
