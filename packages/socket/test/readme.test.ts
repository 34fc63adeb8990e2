import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readmeExamples, runReadmeExample } from "@nearwire/conformance";

const pkg = new URL("..", import.meta.url);

describe("README example", () => {
  it("parses addresses, binds with mode 0600, answers, and cleans up", () => {
    const [code] = readmeExamples(new URL("README.md", pkg));
    assert.ok(code !== undefined);
    const out = runReadmeExample(pkg, code, { modules: { "@nearwire/socket": "src/index.ts" } });
    assert.match(out, /^\/run\/app\.sock\nunix-abstract:app\ntcp:127\.0\.0\.1:7000\n/);
    assert.match(out, /listening on \/\S+\/app\.sock\nmode 600\nreply hello\n/);
  });
});
