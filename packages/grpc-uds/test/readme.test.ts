import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { it } from "node:test";
import { fileURLToPath } from "node:url";
import { tempDir } from "./helpers.js";

it("the README example runs and prints the reply", () => {
  const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
  const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(code !== undefined);
  const tmp = tempDir();
  // Inside the package so that `@nearwire/core` resolves; removed below.
  const file = fileURLToPath(new URL(`./readme-example-${process.pid}.ts`, import.meta.url));
  try {
    writeFileSync(
      file,
      code
        .replace('"@nearwire/grpc-uds"', '"../src/index.js"')
        .replaceAll("/tmp/nearwire-demo.sock", `${tmp.dir}/demo.sock`),
    );
    const run = spawnSync(process.execPath, ["--import", "tsx", file], {
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), "{ text: 'hi there' }");
  } finally {
    rmSync(file, { force: true });
    tmp.cleanup();
  }
});
