import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MessageChannel } from "node:worker_threads";
import { type Channel, Code } from "@nearwire/core";
import { createWorkerChannelProvider } from "../src/index.js";
import { createWorkerSegment } from "../src/worker-segment.js";

/**
 * A bad `features` value in the set-up (PROTOCOL.md §6.4, as §6.1). BATCH only when both sides
 * said so: the channel suite's negotiation tests, channel-suite.test.ts.
 */
describe("worker set-up: a bad features value", () => {
  for (const bad of ["1", -1, 1.5, 2 ** 32, null]) {
    it(`connector features ${JSON.stringify(bad)}: refused INVALID_ARGUMENT, the listener keeps serving`, async () => {
      const { port1, port2 } = new MessageChannel();
      const accepted: Channel[] = [];
      const l = await createWorkerChannelProvider({ port: port1, batches: true }).listen((ch) => {
        accepted.push(ch);
      });
      const { buffer, nonce } = createWorkerSegment(4096);
      const reply = new MessageChannel();
      const answer = new Promise<{ nearwire?: string; code?: number; message?: string }>((r) =>
        reply.port1.once("message", r),
      );
      port2.postMessage(
        {
          nearwire: "offer",
          version: 1,
          buffer,
          ringBytes: 4096,
          maxFrameBytes: 65536,
          features: bad,
          nonce,
          port: reply.port2,
        },
        [reply.port2],
      );
      const m = await answer;
      assert.equal(m.nearwire, "error");
      assert.equal(m.code, Code.InvalidArgument);
      assert.match(m.message ?? "", /connector features/);
      assert.equal(accepted.length, 0, "no channel for the bad offer");
      reply.port1.close();
      const good = await createWorkerChannelProvider({ port: port2, batches: true }).connect();
      assert.equal(good.peerAcceptsBatches, true);
      await good.close();
      for (const ch of accepted) await ch.close();
      await l.close();
      port1.close();
    });
  }
});
