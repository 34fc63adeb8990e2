import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { MessageChannel } from "node:worker_threads";
import { Held, patterned, sinkCodec } from "@nearwire/conformance";
import { createWorkerTransport } from "../src/index.js";

const KiB = 1024;
const SIZE = 64 * KiB;
const COUNT = 60;

/**
 * PROTOCOL.md §5.4 over the worker transport: a server streams 64 KiB messages to a client
 * that takes one and stops reading; how many the server's handler got out before credit held
 * it, with the client's byte window or without one. Then the client reads on: every message
 * arrives intact.
 */
async function heldBy(creditWindowBytes?: number): Promise<number> {
  const { port1, port2 } = new MessageChannel();
  const server = createWorkerTransport({ port: port1 }).createServer();
  let yielded = 0;
  server.addService(
    Held,
    {
      async *Emit(req) {
        for (let i = 0; i < req.count; i++) {
          yield patterned(i, req.size ?? 0);
          yielded++;
        }
      },
      async Take() {
        return { count: 0 };
      },
      Release(req) {
        return req;
      },
    },
    { codec: sinkCodec },
  );
  await server.listen();
  const window = creditWindowBytes === undefined ? {} : { creditWindowBytes };
  const conn = await createWorkerTransport({ port: port2, ...window }).connect();
  try {
    const it = conn
      .client(Held, { codec: sinkCodec })
      .Emit({ count: COUNT, size: SIZE })
      [Symbol.asyncIterator]();
    let n = 0;
    const take = async (): Promise<boolean> => {
      const r = await it.next();
      if (r.done === true) return false;
      const want = patterned(n, SIZE);
      assert.ok(
        r.value.byteLength === SIZE && r.value.every((b, j) => b === want[j]),
        `message ${n}`,
      );
      n++;
      return true;
    };
    await take();
    // Steady: the count did not move for 100 ms.
    let last = -1;
    while (last !== yielded) {
      last = yielded;
      await sleep(100);
    }
    const held = yielded;
    while (await take());
    assert.equal(n, COUNT);
    return held;
  } finally {
    await conn.close();
    await server.close();
    port1.close();
  }
}

describe("a receiver's byte window over the worker transport", () => {
  it("the client's 256 KiB holds 4 messages of 64 KiB on the way, no window 32", async (t) => {
    const held = await heldBy(256 * KiB);
    const plain = await heldBy();
    t.diagnostic(`${held} messages held with the window, ${plain} without`);
    assert.ok(held >= 4 && held <= 6, `window: ${held} messages held`);
    assert.ok(plain >= 32 && plain <= 40, `no window: ${plain} messages held`);
  });
});
