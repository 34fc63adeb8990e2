import { after, describe, it } from "node:test";
import { assertLending, lendingChecker } from "@nearwire/conformance";
import type { Interceptor } from "@nearwire/core";
import { tempDir } from "./support/servers.js";

// A client-streaming handler marked with lendMessages on a grpc-uds server, fed 300 messages of
// 64 KiB by a client in another process. Each message spans two DATA frames (64 KiB frames, a
// 5-byte prefix), so the server collects it into a buffer: lending, that buffer comes from the
// connection's pool, filled by the messages before it; each is intact when the handler takes it.
const tmp = tempDir();
after(() => tmp.cleanup());
const factoryModule = new URL("./fixtures/grpc-factory.js", import.meta.url).href;
let n = 0;
const check = lendingChecker(factoryModule, () => `unix:${tmp.dir}/lend-${n++}.sock`);

describe("lendMessages over grpc-uds (handler side)", () => {
  it("a lending handler's messages reuse a few buffers, each intact when taken", async () => {
    assertLending(await check(true), true);
  });

  it("call after call: the last message of each goes back when the handler returns", async () => {
    assertLending(await check(true, undefined, "requests", 100), true);
  });

  it("without lendMessages, or inside an interceptor, every message has a buffer of its own", async () => {
    const pass: Interceptor = (next) => (req) => next(req);
    assertLending(await check(false), false);
    assertLending(await check(true, [pass]), false);
  });
});

// The sending side of both directions encodes in place (the check's codec has encodeIntoRange):
// after the first 64 KiB message, each goes into a buffer of the connection's send pool that
// comes back once the socket has written it. Each message is checked when taken, so a buffer
// reused before the socket was done with it would show as a bad message.
describe("grpc-uds senders reusing their send buffers", () => {
  it("300 requests of 64 KiB from a client in another process arrive intact", async () => {
    assertLending(await check(false), false);
  });

  it("300 responses of 64 KiB from a server in another process arrive intact", async () => {
    // Without lendMessages the client keeps one receive buffer per response.
    assertLending(await check(false, undefined, "responses"), false);
  });
});

// A client reading a response stream with `lendMessages: true`: each response, collected from
// two DATA frames, goes into a buffer of the connection's pool that comes back when the caller
// asks for the next; inside an interceptor nothing is lent.
describe("lendMessages over grpc-uds (client side)", () => {
  it("a lending caller's responses reuse a few buffers, each intact when taken", async () => {
    assertLending(await check(true, undefined, "responses"), true);
  });

  it("inside an interceptor every response has a buffer of its own", async () => {
    const pass: Interceptor = (next) => (req) => next(req);
    assertLending(await check(true, [pass], "responses"), false);
  });
});
