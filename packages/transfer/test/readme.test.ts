import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readmeExamples, runReadmeExample } from "@nearwire/conformance";

const pkg = new URL("..", import.meta.url);

describe("README example", () => {
  it("uploads, reports status and downloads a byte-identical file", () => {
    const [code] = readmeExamples(new URL("README.md", pkg));
    assert.ok(code !== undefined);
    const out = runReadmeExample(pkg, code, { modules: { "@nearwire/transfer": "src/index.ts" } });
    assert.match(out, /uploaded 3145728 B, progress reached 3145728/);
    assert.match(out, /committed: true/);
    assert.match(out, /downloaded, sha256 matches: true/);
  });
});
