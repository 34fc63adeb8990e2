/** Suite: a stalled consumer pushes back on its producer; memory stays bounded. */
import assert from "node:assert/strict";
import { describe } from "node:test";
import type { StreamItem } from "../conformance-service.js";
import type { SuiteHarness } from "../suite-harness.js";
import { sleep, waitFor } from "../wait.js";
import { countRequest, newTag, sharedServer } from "./shared-server.js";

const S = "backpressure";

/** Items per backpressure test and their text size: 25,000 × 4 KiB = 100 MiB if unbounded. */
const ITEMS = 25_000;
const ITEM_BYTES = 4096;
/** Largest lead a producer may build over a stalled consumer, in items (10 MiB here). */
const MAX_AHEAD = 2_500;
/**
 * Largest RSS growth while the consumer stalls, in bytes, of the server and of the client (the
 * test process): 100 MiB of items would be buffered somewhere if either side read on without
 * bound.
 */
const MAX_RSS_GROWTH = 64 * 1024 * 1024;

/**
 * Waits until `read()` returns the same value for `quietPolls` polls in a row, `intervalMs`
 * apart (the producer has stopped); bounded by `timeoutMs`. Returns that value.
 */
async function settle(
  what: string,
  read: () => Promise<number>,
  quietPolls = 5,
  intervalMs = 100,
): Promise<number> {
  let last = -1;
  let same = 0;
  return await waitFor(
    `${what} to stop growing`,
    async () => {
      const v = await read();
      same = v === last ? same + 1 : 0;
      last = v;
      return same >= quietPolls ? v : undefined;
    },
    { timeoutMs: 15_000, intervalMs },
  );
}

/** A stalled consumer holds the producer back (bounded lead, bounded memory), then gets all. */
export function backpressureSuite(h: SuiteHarness): void {
  describe(S, () => {
    const s = sharedServer(h);

    h.test(
      S,
      "server stream: a stalled reader bounds the producer and its own memory; resuming delivers all, in order",
      async () => {
        await s.c.client
          .count(countRequest("", 100, ITEM_BYTES))
          [Symbol.asyncIterator]()
          .next();
        const tag = newTag("bp-server");
        const before = await s.c.client.stats({ tag });
        const clientBefore = process.memoryUsage.rss();
        const it = s.c.client.produce(countRequest(tag, ITEMS, ITEM_BYTES))[Symbol.asyncIterator]();
        let consumed = 0;
        for (; consumed < 10; consumed++) {
          const r = await it.next();
          assert.equal(r.done, false);
          assert.equal(r.value.seq, consumed);
        }
        const produced = await settle(
          "the producer",
          async () => (await s.c.client.stats({ tag })).tagProduced,
        );
        const stalled = await s.c.client.stats({ tag });
        const ahead = produced - consumed;
        assert.ok(
          ahead <= MAX_AHEAD,
          `producer got ${ahead} items (${(ahead * ITEM_BYTES) >> 20} MiB) ahead of a stalled reader; bound ${MAX_AHEAD}`,
        );
        const growth = stalled.rssBytes - before.rssBytes;
        assert.ok(
          growth <= MAX_RSS_GROWTH,
          `server RSS grew ${growth >> 20} MiB during the stall; bound ${MAX_RSS_GROWTH >> 20} MiB`,
        );
        // The client does not read on without bound either: it grants credit only as its
        // reader takes messages, so what arrives while it stalls is the window, not the stream.
        const clientGrowth = process.memoryUsage.rss() - clientBefore;
        assert.ok(
          clientGrowth <= MAX_RSS_GROWTH,
          `client RSS grew ${clientGrowth >> 20} MiB during the stall; bound ${MAX_RSS_GROWTH >> 20} MiB`,
        );
        for (;;) {
          const r = await it.next();
          if (r.done === true) break;
          if (r.value.seq !== consumed) assert.fail(`item ${consumed}: got seq ${r.value.seq}`);
          consumed++;
          if (consumed > ITEMS) assert.fail("more items than produced");
        }
        assert.equal(consumed, ITEMS);
      },
      { timeoutMs: 40_000 },
    );

    h.test(
      S,
      "bidi: a client that sends without reading is held back; reading resumes it",
      async () => {
        let pulled = 0;
        function* requests(): Generator<StreamItem> {
          const text = "x".repeat(ITEM_BYTES);
          for (let seq = 0; seq < ITEMS; seq++) {
            pulled++;
            yield { seq, text, note: "" };
          }
        }
        const it = s.c.client.bidi(requests())[Symbol.asyncIterator]();
        const first = await it.next();
        assert.equal(first.done, false);
        let consumed = 1;
        await sleep(50);
        const held = await settle("the client's request generator", async () => pulled);
        assert.ok(
          held - consumed <= 2 * MAX_AHEAD,
          `client sent ${held} items while the reader took ${consumed}`,
        );
        for (;;) {
          const r = await it.next();
          if (r.done === true) break;
          if (r.value.seq !== consumed) assert.fail(`item ${consumed}: got seq ${r.value.seq}`);
          consumed++;
          if (consumed > ITEMS) assert.fail("more items than sent");
        }
        assert.equal(consumed, ITEMS);
      },
      { timeoutMs: 40_000 },
    );
  });
}
