import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readmeExamples, runReadmeExample } from "@nearwire/conformance";

const pkg = new URL("..", import.meta.url);

describe("README example", () => {
  it("writes and reads a record over a SharedArrayBuffer", () => {
    const [code] = readmeExamples(new URL("README.md", pkg));
    assert.ok(code !== undefined);
    const out = runReadmeExample(pkg, code, { modules: { "@nearwire/ring": "src/index.ts" } });
    assert.match(out, /^128 hi$/m);
  });
});
