import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { lendingCheck } from "@nearwire/conformance";
import type { Interceptor } from "@nearwire/core";
import { tempDir } from "./support/channels.js";

// A client-streaming handler marked with lendMessages on a uds server, fed 300 messages of
// 64 KiB by a client in another process: each message is received into a frame buffer given
// back by the one before it (no new buffer per message), and is intact when the handler takes it.
// The same for a client reading a response stream with `lendMessages: true` from a server in
// another process.
const tmp = tempDir();
after(() => tmp.cleanup());
const factoryModule = new URL("./fixtures/uds-factory.ts", import.meta.url).href;
let n = 0;
const check = (
  lend: boolean,
  interceptors?: Interceptor[],
  direction: "requests" | "responses" = "requests",
) =>
  lendingCheck({
    factoryModule,
    address: tmp.path(`lend-${n++}.sock`),
    lend,
    direction,
    ...(interceptors === undefined ? {} : { interceptors }),
  });

describe("lendMessages over uds", () => {
  it("a lending handler's messages reuse a few buffers, each intact when taken", async () => {
    const seen = await check(true);
    assert.equal(seen.count, 300);
    assert.deepEqual(seen.bad, []);
    // A sender refilled with credit runs ahead by its window: a few dozen buffers at most.
    assert.ok(seen.buffers <= 48, `${seen.buffers} buffers for 300 messages`);
  });

  it("without lendMessages, or inside an interceptor, every message has a buffer of its own", async () => {
    const pass: Interceptor = (next) => (req) => next(req);
    for (const seen of [await check(false), await check(true, [pass])]) {
      assert.equal(seen.count, 300);
      assert.deepEqual(seen.bad, []);
      assert.ok(seen.buffers > 290, `${seen.buffers} buffers`);
    }
  });

  it("a client reading a response stream with lendMessages reuses a few buffers too", async () => {
    const seen = await check(true, undefined, "responses");
    assert.equal(seen.count, 300);
    assert.deepEqual(seen.bad, []);
    assert.ok(seen.buffers <= 48, `${seen.buffers} buffers for 300 messages`);
  });

  it("a client without lendMessages, or with an interceptor, gets a buffer per response", async () => {
    const pass: Interceptor = (next) => (req) => next(req);
    for (const seen of [
      await check(false, undefined, "responses"),
      await check(true, [pass], "responses"),
    ]) {
      assert.equal(seen.count, 300);
      assert.deepEqual(seen.bad, []);
      assert.ok(seen.buffers > 290, `${seen.buffers} buffers`);
    }
  });
});
