// The README example runs as written (in its own process, on a temporary socket path) and exits.
import assert from "node:assert/strict";
import { it } from "node:test";
import { readmeExamples, runReadmeExample } from "@nearwire/conformance";
import { leakCheckedTempDir } from "./support/leak-checks.js";

const tmp = leakCheckedTempDir("nw-shm-readme-");
const pkg = new URL("..", import.meta.url);

it("the README example prints the reply and exits", () => {
  const example = readmeExamples(new URL("README.md", pkg))[0] ?? "";
  assert.ok(example.includes('"/tmp/echo.sock"'));
  const code = example.replace('"/tmp/echo.sock"', JSON.stringify(tmp.sock("echo")));
  const out = runReadmeExample(pkg, code, {
    modules: { "@nearwire/shm-ring": "src/index.ts" },
  });
  assert.equal(out.trim(), "{ text: 'HI' }");
});
