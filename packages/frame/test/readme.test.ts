import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readmeExamples, runReadmeExample } from "@nearwire/conformance";

const pkg = new URL("..", import.meta.url);

describe("README example", () => {
  it("runs and prints the decoded frames", () => {
    const [code] = readmeExamples(new URL("README.md", pkg));
    assert.ok(code !== undefined);
    // Resolve the package's own source instead of its built dist.
    const out = runReadmeExample(pkg, code, { modules: { "@nearwire/frame": "src/index.ts" } });
    assert.match(out, /hello \{ version: 1, flags: 0, maxFrameBytes: 65536 \}/);
    assert.match(out, /frame 128 2 bytes/);
    assert.match(out, /crc32c: (hardware|portable)/);
  });
});
