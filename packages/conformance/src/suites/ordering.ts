/** Suite: no loss, no duplicate, in order, over 100,000 messages per streaming call kind. */
import assert from "node:assert/strict";
import { describe } from "node:test";
import { checksumStep, type StreamItem } from "../conformance-service.js";
import type { SuiteHarness } from "../suite-harness.js";
import { countRequest, sharedServer } from "./shared-server.js";

const S = "ordering";

function* items(n: number): Generator<StreamItem> {
  for (let seq = 0; seq < n; seq++) yield { seq, text: "", note: "" };
}

/** No loss, no duplication, in order, over `orderingMessages` messages per call kind. */
export function orderingSuite(h: SuiteHarness): void {
  const n = h.options.orderingMessages;
  describe(S, () => {
    const s = sharedServer(h);

    h.test(
      S,
      `client stream: ${n} items arrive once each, in order`,
      async () => {
        const reply = await s.c.client.sum(items(n));
        assert.equal(reply.firstBadSeq, -1, "first out-of-order seq");
        assert.equal(reply.count, n);
        let checksum = 0;
        for (const item of items(n)) checksum = checksumStep(checksum, item);
        assert.equal(reply.checksum, checksum);
      },
      { timeoutMs: 40_000 },
    );

    h.test(
      S,
      `server stream: ${n} items arrive once each, in order`,
      async () => {
        let expected = 0;
        for await (const item of s.c.client.count(countRequest("", n))) {
          if (item.seq !== expected) assert.fail(`item ${expected}: got seq ${item.seq}`);
          expected++;
        }
        assert.equal(expected, n);
      },
      { timeoutMs: 40_000 },
    );

    h.test(
      S,
      `bidi: ${n} items are echoed once each, in order`,
      async () => {
        let expected = 0;
        for await (const item of s.c.client.bidi(items(n))) {
          if (item.seq !== expected) assert.fail(`item ${expected}: got seq ${item.seq}`);
          expected++;
        }
        assert.equal(expected, n);
      },
      { timeoutMs: 40_000 },
    );
  });
}
