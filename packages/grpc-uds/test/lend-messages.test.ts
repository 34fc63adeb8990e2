import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { lendingCheck } from "@nearwire/conformance";
import type { Interceptor } from "@nearwire/core";
import { tempDir } from "./support/servers.js";

// A client-streaming handler marked with lendMessages on a grpc-uds server, fed 300 messages of
// 64 KiB by a client in another process. Each message spans two DATA frames (64 KiB frames, a
// 5-byte prefix), so the server collects it into a buffer: lending, that buffer comes from the
// connection's pool, filled by the messages before it; each is intact when the handler takes it.
const tmp = tempDir();
after(() => tmp.cleanup());
const factoryModule = new URL("./fixtures/grpc-factory.ts", import.meta.url).href;
let n = 0;
const check = (lend: boolean, interceptors?: Interceptor[]) =>
  lendingCheck({
    factoryModule,
    address: `unix:${tmp.dir}/lend-${n++}.sock`,
    lend,
    ...(interceptors === undefined ? {} : { interceptors }),
  });

describe("lendMessages over grpc-uds (handler side)", () => {
  it("a lending handler's messages reuse a few buffers, each intact when taken", async () => {
    const seen = await check(true);
    assert.equal(seen.count, 300);
    assert.deepEqual(seen.bad, []);
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
});
