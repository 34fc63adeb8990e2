import { after, describe, it } from "node:test";
import { assertLending, lendingChecker } from "@nearwire/conformance";
import type { Interceptor } from "@nearwire/core";
import { tempDir } from "./support/channels.js";

// A client-streaming handler marked with lendMessages on a uds server, fed 300 messages of
// 64 KiB by a client in another process: each message is received into a frame buffer given
// back by the one before it (no new buffer per message), and is intact when the handler takes it.
// The same for a client reading a response stream with `lendMessages: true` from a server in
// another process.
const tmp = tempDir();
after(() => tmp.cleanup());
const factoryModule = new URL("./fixtures/uds-factory.js", import.meta.url).href;
let n = 0;
const check = lendingChecker(factoryModule, () => tmp.path(`lend-${n++}.sock`));

describe("lendMessages over uds", () => {
  const pass: Interceptor = (next) => (req) => next(req);

  it("a lending handler's messages reuse a few buffers, each intact when taken", async () => {
    assertLending(await check(true), true);
  });

  it("without lendMessages, or inside an interceptor, every message has a buffer of its own", async () => {
    assertLending(await check(false), false);
    assertLending(await check(true, [pass]), false);
  });

  it("call after call: the last message of each goes back when the handler returns", async () => {
    assertLending(await check(true, undefined, "requests", 100), true);
  });

  it("a client reading a response stream with lendMessages reuses a few buffers too", async () => {
    assertLending(await check(true, undefined, "responses"), true);
  });

  it("a client without lendMessages, or with an interceptor, gets a buffer per response", async () => {
    assertLending(await check(false, undefined, "responses"), false);
    assertLending(await check(true, [pass], "responses"), false);
  });
});
