import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

// (core cannot use @nearwire/conformance's README helper: conformance depends on core.)
describe("README example", () => {
  it("runs in its own process", () => {
    const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(code !== undefined, "README has a ts block");
    const dir = mkdtempSync(fileURLToPath(new URL("../.readme-", import.meta.url)));
    try {
      const file = join(dir, "example.ts");
      const src = fileURLToPath(new URL("../src/index.ts", import.meta.url));
      writeFileSync(file, code.replace('from "@nearwire/core"', `from ${JSON.stringify(src)}`));
      const out = execFileSync(process.execPath, ["--import", "tsx", file], {
        encoding: "utf8",
        timeout: 30_000,
      });
      assert.equal(out, "nearest,walk server_streaming\ntrue decode-failed\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
