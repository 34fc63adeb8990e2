import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readmeExamples, runReadmeExample } from "@nearwire/conformance";

const pkg = new URL("..", import.meta.url);

describe("README example", () => {
  it("runs and prints the check value", () => {
    const [code] = readmeExamples(new URL("README.md", pkg));
    assert.ok(code !== undefined);
    const out = runReadmeExample(pkg, code, {
      modules: { "@nearwire/crc32c-native": "src/index.ts" },
    });
    assert.match(out, /^e3069283 (sse4\.2|armv8-crc|slice-by-8)\ntrue\n[0-9a-f]+\n$/);
  });
});
