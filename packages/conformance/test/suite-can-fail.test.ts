import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, it } from "node:test";

const SUITE = new URL("./fixtures/faulty-suite.ts", import.meta.url).pathname;
const CHANNEL_SUITE = new URL("./fixtures/faulty-channel-suite.ts", import.meta.url).pathname;

/** Runs a faulty suite in a child `node --test`; resolves with its exit code and output. */
function runFaulty(
  fault: string,
  pattern: string,
  suite = SUITE,
): Promise<{ code: number | null; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NWC_FAULT: fault };
  delete env.NODE_TEST_CONTEXT; // else node:test refuses to run tests inside a test
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--test-reporter=spec", `--test-name-pattern=${pattern}`, suite],
      { env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (out += s));
    child.once("close", (code) => resolve({ code, out }));
  });
}

describe("the suite fails a faulty transport", () => {
  it("a dropped message fails the ordering tests", { timeout: 90_000 }, async () => {
    const { code, out } = await runFaulty("drop-message", "ordering");
    assert.notEqual(code, 0, out);
    assert.match(out, /✖ client stream: 20000 items arrive once each, in order/);
    assert.match(out, /✖ server stream: 20000 items arrive once each, in order/);
    assert.match(out, /✖ bidi: 20000 items are echoed once each, in order/);
    assert.match(out, /got seq \d+|first out-of-order seq/);
    assert.doesNotMatch(out, /TypeError/);
  });

  it("a handle kept open after server close fails the server's shutdown", {
    timeout: 90_000,
  }, async () => {
    const { code, out } = await runFaulty("leak-handle", "listen, connect, call");
    assert.notEqual(code, 0, out);
    assert.match(out, /✖ listen, connect, call, and close cleanly on both sides/);
    assert.match(out, /LEAKED/);
  });
});

describe("the channel suite fails a faulty channel", () => {
  it("a lost frame fails the ordering test", { timeout: 60_000 }, async () => {
    const { code, out } = await runFaulty("drop-frame", "sequence frames", CHANNEL_SUITE);
    assert.notEqual(code, 0, out);
    assert.match(out, /✖ 20000 sequence frames each way arrive in order, none lost/);
  });

  it("a type check of its own (TypeError, not checkSend's error) fails the bad-type test", {
    timeout: 60_000,
  }, async () => {
    const { code, out } = await runFaulty("own-type-check", "bad frame type", CHANNEL_SUITE);
    assert.notEqual(code, 0, out);
    assert.match(out, /✖ a bad frame type is INVALID_ARGUMENT unknown-frame-type/);
    assert.match(out, /expected a NearwireError, got TypeError/);
  });
});
