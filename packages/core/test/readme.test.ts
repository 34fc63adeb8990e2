import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

// (core cannot use @nearwire/conformance's README helper: conformance depends on core.)
const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
/** Every ```ts block without an info string, in order. */
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);

function run(code: string): string {
  const dir = mkdtempSync(fileURLToPath(new URL("../.readme-", import.meta.url)));
  try {
    const file = join(dir, "example.ts");
    const src = fileURLToPath(new URL("../src/index.ts", import.meta.url));
    writeFileSync(file, code.replaceAll('from "@nearwire/core"', `from ${JSON.stringify(src)}`));
    return execFileSync(process.execPath, ["--import", "tsx", file], {
      encoding: "utf8",
      timeout: 30_000,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("README examples", () => {
  it("has eight, each runs in its own process", () => assert.equal(blocks.length, 8));

  it("services, codecs, errors", () => {
    assert.equal(run(blocks[0] ?? ""), "nearest,walk server_streaming\ntrue decode-failed\n");
  });

  it("testing a service without sockets (memory transport, await using)", () => {
    assert.equal(run(blocks[1] ?? ""), "");
  });

  it("interceptors, headers and trailers", () => {
    assert.equal(run(blocks[2] ?? ""), "");
  });

  it("health checking", () => {
    assert.equal(run(blocks[3] ?? ""), "");
  });

  it("lending messages (lendMessages, CallOptions.lendMessages)", () => {
    assert.equal(run(blocks[4] ?? ""), "");
  });

  it("messages at hand (nextNow): a source's values taken without next()", () => {
    assert.equal(run(blocks[5] ?? ""), "");
  });

  it("receiving with no promise per message (whenReady, forEachMessage)", () => {
    assert.equal(run(blocks[6] ?? ""), "");
  });

  it("reconnecting and retrying", () => {
    assert.equal(run(blocks[7] ?? ""), "2 ready\ntrue\n4 ready\n");
  });
});
