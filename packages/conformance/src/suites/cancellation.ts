/** Suite: cancellation by the client (AbortSignal, leaving a stream) and by the server. */
import assert from "node:assert/strict";
import { describe } from "node:test";
import { Code } from "@nearwire/core";
import type { StreamItem } from "../conformance-service.js";
import type { SuiteHarness } from "../suite-harness.js";
import { createGate, expectCode, sleep, waitFor } from "../wait.js";
import { countRequest, newTag, sharedServer } from "./shared-server.js";

const S = "cancellation";

/** Cancellation from the client (AbortSignal, leaving a stream) and from the server (throw). */
export function cancellationSuite(h: SuiteHarness): void {
  describe(S, () => {
    const s = sharedServer(h);

    const stats = (tag: string) => s.c.client.stats({ tag });
    const started = (tag: string, n = 1) =>
      waitFor(`${n} handler(s) of ${tag} to start`, async () =>
        (await stats(tag)).tagStarted >= n ? true : undefined,
      );
    const sawAbort = (tag: string) =>
      waitFor(`the handler of ${tag} to see its signal abort`, async () => {
        const st = await stats(tag);
        return st.tagAborted >= 1 ? st : undefined;
      });

    h.test(
      S,
      "unary: aborting the signal → CANCELLED, and the handler sees the abort",
      async () => {
        const tag = newTag("cancel-unary");
        const ac = new AbortController();
        const call = s.c.client.sleep({ tag, ms: 10_000 }, { signal: ac.signal });
        await started(tag);
        ac.abort();
        await expectCode(call, Code.Canceled, "aborted sleep");
        await sawAbort(tag);
      },
    );

    h.test(S, "unary: an already aborted signal → CANCELLED", async () => {
      const ac = new AbortController();
      ac.abort();
      await expectCode(
        s.c.client.echo({ id: 1, text: "x" }, { signal: ac.signal }),
        Code.Canceled,
        "echo with aborted signal",
      );
      const after = await s.c.client.echo({ id: 2, text: "ok" });
      assert.equal(after.id, 2);
    });

    h.test(S, "server stream: aborting mid-way → CANCELLED, and the producer stops", async () => {
      const tag = newTag("cancel-stream");
      const ac = new AbortController();
      const n = 1_000_000;
      let got = 0;
      await expectCode(
        async () => {
          for await (const item of s.c.client.produce(countRequest(tag, n, 16), {
            signal: ac.signal,
          })) {
            assert.equal(item.seq, got);
            got++;
            if (got === 10) ac.abort();
            if (got > n) break;
          }
        },
        Code.Canceled,
        "produce aborted after 10 items",
      );
      const st = await sawAbort(tag);
      assert.ok(st.tagProduced < n, `producer ran to the end (${st.tagProduced})`);
    });

    h.test(S, "server stream: leaving the loop early cancels the call on the server", async () => {
      const tag = newTag("break-stream");
      let got = 0;
      for await (const _ of s.c.client.produce(countRequest(tag, 1_000_000, 16))) {
        if (++got === 10) break;
      }
      await sawAbort(tag);
    });

    h.test(S, "client stream: aborting → CANCELLED, and the handler sees the abort", async () => {
      const ac = new AbortController();
      const tag = newTag("cancel-sum");
      async function* endless(): AsyncGenerator<StreamItem> {
        for (let seq = 0; seq < 1000; seq++) {
          yield { seq, text: "", note: "" };
          await sleep(10);
        }
      }
      const call = s.c.client.sum(endless(), { signal: ac.signal, metadata: { "x-tag": tag } });
      await started(tag);
      ac.abort();
      await expectCode(call, Code.Canceled, "aborted sum");
      await sawAbort(tag);
      const after = await s.c.client.echo({ id: 3, text: "ok" });
      assert.equal(after.id, 3);
    });

    h.test(S, "bidi: aborting → CANCELLED, and the handler sees the abort", async () => {
      const tag = newTag("cancel-bidi");
      const ac = new AbortController();
      const gate = createGate(10_000);
      async function* one(): AsyncGenerator<StreamItem> {
        yield { seq: 0, text: "a", note: "" };
        await gate.promise;
      }
      try {
        await expectCode(
          async () => {
            for await (const item of s.c.client.bidi(one(), {
              signal: ac.signal,
              metadata: { "x-tag": tag },
            })) {
              assert.equal(item.seq, 0);
              ac.abort();
            }
          },
          Code.Canceled,
          "aborted bidi",
        );
      } finally {
        gate.open();
      }
      await sawAbort(tag);
    });

    h.test(
      S,
      "the server throws mid-stream → the client gets the items sent, then the code",
      async () => {
        const items: number[] = [];
        await expectCode(
          async () => {
            for await (const item of s.c.client.count(countRequest("", 100, 4, 5, Code.Aborted)))
              items.push(item.seq);
          },
          Code.Aborted,
          "count failing after 5",
        );
        assert.deepEqual(items, [0, 1, 2, 3, 4]);
        const after = await s.c.client.echo({ id: 4, text: "ok" });
        assert.equal(after.id, 4);
      },
    );
  });
}
