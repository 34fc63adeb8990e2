import { describe, it } from "node:test";
import { assertLending, lendingCheck } from "@nearwire/conformance";
import { leakCheckedTempDir } from "./support/leak-checks.js";

// A client-streaming handler marked with lendMessages on a shm-ring server, fed 300 messages of
// 64 KiB by a client in another process: the engine copies each message out of its ring slot
// into a buffer of its pool, given back when the handler takes the next, so a few buffers serve
// the whole stream; each message is intact when the handler takes it. The same for a client
// that reads a response stream with `lendMessages: true`, fed by a server in another process.
const tmp = leakCheckedTempDir("nw-shm-lend-");
const factoryModule = new URL("./fixtures/shm-factory.js", import.meta.url).href;

describe("lendMessages over shm-ring", () => {
  it("lending: a few pooled copies, each message intact; not lending: a copy each", async () => {
    const check = (lend: boolean, name: string) =>
      lendingCheck({ factoryModule, address: tmp.sock(name), lend });
    assertLending(await check(true, "lend"), true);
    assertLending(await check(false, "own"), false);
  });

  it("call after call: the last message of each goes back when the handler returns", async () => {
    const calls = await lendingCheck({
      factoryModule,
      address: tmp.sock("calls"),
      lend: true,
      calls: 100,
    });
    assertLending(calls, true);
  });

  it("a client reading a response stream with lendMessages: the same, the other way", async () => {
    const responses = (lend: boolean, name: string) =>
      lendingCheck({ factoryModule, address: tmp.sock(name), lend, direction: "responses" });
    assertLending(await responses(true, "lend-resp"), true);
    assertLending(await responses(false, "own-resp"), false);
  });
});
