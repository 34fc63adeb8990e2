import { test } from "node:test";
import { readmeExamples, runReadmeExample } from "@nearwire/conformance";

const pkg = new URL("..", import.meta.url);

test("every ts example in README.md runs", () => {
  for (const code of readmeExamples(new URL("README.md", pkg)))
    runReadmeExample(pkg, code, { modules: { "@nearwire/otel": "src/index.ts" } });
});
