import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MessageChannel } from "node:worker_threads";
import type { Channel } from "@nearwire/core";
import { createWorkerChannelProvider } from "../src/index.js";

/**
 * The set-up's `features` (PROTOCOL.md §6.4, as §6.1): each side takes BATCH frames only if it
 * said so, and sends them only if the other side said so too.
 */
describe("worker set-up: features", () => {
  for (const [connector, listener] of [
    [true, true],
    [true, false],
    [false, true],
    [false, false],
  ] as const) {
    it(`connector batches ${connector}, listener batches ${listener}`, async () => {
      const { port1, port2 } = new MessageChannel();
      let onLocal!: (ch: Channel) => void;
      const accepted = new Promise<Channel>((r) => {
        onLocal = r;
      });
      const l = await createWorkerChannelProvider({ port: port1, batches: listener }).listen(
        onLocal,
      );
      const remote = await createWorkerChannelProvider({
        port: port2,
        batches: connector,
      }).connect();
      const local = await accepted;
      assert.equal(remote.acceptsBatches, connector, "connector takes");
      assert.equal(remote.peerAcceptsBatches, connector && listener, "connector sends");
      assert.equal(local.peerAcceptsBatches, connector, "listener sends");
      assert.equal(local.acceptsBatches, connector && listener, "listener takes");
      await Promise.all([remote.close(), local.close()]);
      await l.close();
      port1.close();
    });
  }
});
