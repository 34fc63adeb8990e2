import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Channel } from "@nearwire/core";
import { createUdsChannelProvider } from "../src/index.js";
import { abstractName } from "./helpers.js";

/**
 * HELLO's features field (PROTOCOL.md §4.1) between two uds channels: each side takes BATCH
 * only if its own HELLO announced it, and sends it only if the peer's did. (What a server
 * answers to raw HELLOs, with and without the field, is checked by rpc-rules.test.ts.)
 */
describe("uds preface: HELLO features", () => {
  for (const [client, server] of [
    [true, true],
    [true, false],
    [false, true],
    [false, false],
  ] as const) {
    it(`client batches ${client}, server batches ${server}`, async () => {
      const address = abstractName();
      let accepted: Channel | undefined;
      const listener = await createUdsChannelProvider({ address, batches: server }).listen((ch) => {
        accepted = ch;
      });
      const ch = await createUdsChannelProvider({ address, batches: client }).connect();
      for (let i = 0; i < 100 && accepted === undefined; i++)
        await new Promise((r) => setTimeout(r, 5));
      const srv = accepted as Channel;
      assert.equal(ch.acceptsBatches, client, "client takes");
      assert.equal(ch.peerAcceptsBatches, client && server, "client sends");
      assert.equal(srv.peerAcceptsBatches, client, "server sends");
      assert.equal(srv.acceptsBatches, client && server, "server takes");
      await Promise.all([ch.close(), srv.close()]);
      await listener.close();
    });
  }
});
