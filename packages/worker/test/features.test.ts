import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { type Channel, Code } from "@nearwire/core";
import { createWorkerChannelProvider } from "../src/index.js";
import { createWorkerSegment } from "../src/worker-segment.js";

/** An offer made by hand on `port`, with `extra` keys; the listener's answer. */
async function offer(
  port: MessagePort,
  extra: Record<string, unknown>,
): Promise<{ nearwire?: string; code?: number; message?: string; [k: string]: unknown }> {
  const { buffer, nonce } = createWorkerSegment(4096);
  const reply = new MessageChannel();
  const answer = new Promise<{ nearwire?: string; code?: number; message?: string }>((r) =>
    reply.port1.once("message", r),
  );
  port.postMessage(
    {
      nearwire: "offer",
      version: 1,
      buffer,
      ringBytes: 4096,
      maxFrameBytes: 65536,
      nonce,
      port: reply.port2,
      ...extra,
    },
    [reply.port2],
  );
  const m = await answer;
  reply.port1.close();
  return m;
}

/**
 * A bad `features` or `creditWindowBytes` value in the set-up (PROTOCOL.md §6.4, as §6.1): the
 * offer is refused INVALID_ARGUMENT and the listener keeps serving. BATCH only when both sides
 * said so: the channel suite's negotiation tests, channel-suite.test.ts.
 */
describe("worker set-up: a bad handshake value", () => {
  const cases: [string, unknown[], (bad: unknown) => Record<string, unknown>][] = [
    ["features", ["1", -1, 1.5, 2 ** 32, null], (bad) => ({ features: bad })],
    // Beside features with credit by bytes and the window bit (6).
    ["creditWindowBytes", ["1", -1, 2 ** 32], (bad) => ({ features: 6, creditWindowBytes: bad })],
  ];
  for (const [key, bads, extra] of cases) {
    for (const bad of bads) {
      it(`connector ${key} ${JSON.stringify(bad)}: refused INVALID_ARGUMENT, the listener keeps serving`, async () => {
        const { port1, port2 } = new MessageChannel();
        const accepted: Channel[] = [];
        const l = await createWorkerChannelProvider({ port: port1, batches: true }).listen((ch) => {
          accepted.push(ch);
        });
        const m = await offer(port2, extra(bad));
        assert.equal(m.nearwire, "error");
        assert.equal(m.code, Code.InvalidArgument);
        assert.match(m.message ?? "", new RegExp(`connector ${key}`));
        assert.equal(accepted.length, 0, "no channel for the bad offer");
        const good = await createWorkerChannelProvider({ port: port2, batches: true }).connect();
        assert.equal(good.peerAcceptsBatches, true);
        await good.close();
        for (const ch of accepted) await ch.close();
        await l.close();
        port1.close();
      });
    }
  }
});

/** PROTOCOL.md §5.4 over the worker set-up: `creditWindowBytes` beside `features`, as §6.1. */
describe("worker set-up: a receiver's byte window", () => {
  const KiB = 1024;

  it("both ends see both windows; a listener answers its own only to an offer with features", async () => {
    const { port1, port2 } = new MessageChannel();
    const accepted: Channel[] = [];
    const l = await createWorkerChannelProvider({
      port: port1,
      creditWindowBytes: 256 * KiB,
    }).listen((ch) => {
      accepted.push(ch);
    });
    const client = await createWorkerChannelProvider({
      port: port2,
      creditWindowBytes: 512 * KiB,
    }).connect();
    assert.equal(client.creditWindowBytes, 512 * KiB);
    assert.equal(client.peerCreditWindowBytes, 256 * KiB);
    const server = accepted[0] as Channel;
    assert.equal(server.creditWindowBytes, 256 * KiB);
    assert.equal(server.peerCreditWindowBytes, 512 * KiB);
    // Credit by bytes + window bit (7 with BATCH; 6 without), and the window.
    const withFeatures = await offer(port2, { features: 6, creditWindowBytes: 1 });
    assert.equal(withFeatures.nearwire, "ready");
    assert.equal(withFeatures.features, 6);
    assert.equal(withFeatures.creditWindowBytes, 256 * KiB);
    // A 1 B window reads as 64 KiB (the clamp), on the listener's side of it too.
    assert.equal((accepted[1] as Channel).peerCreditWindowBytes, 64 * KiB);
    const without = await offer(port2, {});
    assert.equal(without.nearwire, "ready");
    assert.equal(without.features, undefined);
    assert.equal(without.creditWindowBytes, undefined);
    assert.equal((accepted[2] as Channel).creditWindowBytes, undefined);
    await client.close();
    for (const ch of accepted) await ch.close();
    await l.close();
    port1.close();
  });

  it("an option outside 64 KiB … 2 MiB is INVALID_ARGUMENT at creation", () => {
    const { port1 } = new MessageChannel();
    for (const bad of [1024, 4 * 1024 * KiB, 100_000.5]) {
      assert.throws(
        () => createWorkerChannelProvider({ port: port1, creditWindowBytes: bad }),
        (err: { code?: number; message?: string }) =>
          err.code === Code.InvalidArgument && /creditWindowBytes/.test(err.message ?? ""),
      );
    }
    port1.close();
  });
});
