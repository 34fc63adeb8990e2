import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const pkg = fileURLToPath(new URL("..", import.meta.url));

test("every ts example in README.md runs", async () => {
  const md = readFileSync(`${pkg}README.md`, "utf8");
  const blocks = [...md.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  assert.ok(blocks.length > 0, "README has no ts example");
  for (const [i, code] of blocks.entries()) {
    const file = `${pkg}test/.readme-example-${process.pid}-${i}.ts`;
    writeFileSync(file, code.replaceAll('"@nearwire/codec-flatbuffers"', '"../src/index.ts"'));
    try {
      await import(pathToFileURL(file).href);
    } finally {
      rmSync(file, { force: true });
    }
  }
});
