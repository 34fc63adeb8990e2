/** Suite: deadlines on every call kind, seen by the client and by the handler. */
import assert from "node:assert/strict";
import { describe } from "node:test";
import { Code } from "@nearwire/core";
import type { StreamItem } from "../conformance-service.js";
import type { SuiteHarness } from "../suite-harness.js";
import { createGate, expectCode, sleep, waitFor } from "../wait.js";
import { countRequest, newTag, sharedServer } from "./shared-server.js";

const S = "deadlines";

/** timeoutMs → DEADLINE_EXCEEDED on the client, ctx.signal aborted on the server. */
export function deadlinesSuite(h: SuiteHarness): void {
  describe(S, () => {
    const s = sharedServer(h);

    const sawAbort = (tag: string) =>
      waitFor(`the handler of ${tag} to see its signal abort`, async () => {
        const st = await s.c.client.stats({ tag });
        return st.tagAborted >= 1 ? st : undefined;
      });

    h.test(
      S,
      "unary: the deadline passes → DEADLINE_EXCEEDED, and the handler's signal aborts",
      async () => {
        const tag = newTag("deadline-unary");
        await expectCode(
          s.c.client.sleep({ tag, ms: 10_000 }, { timeoutMs: 200 }),
          Code.DeadlineExceeded,
          "sleep 10 s with timeoutMs 200",
        );
        await sawAbort(tag);
      },
    );

    h.test(S, "a call that finishes before its deadline is unaffected", async () => {
      const tag = newTag("deadline-ok");
      const reply = await s.c.client.sleep({ tag, ms: 10 }, { timeoutMs: 10_000 });
      assert.equal(reply.aborted, false);
      const st = await s.c.client.stats({ tag });
      assert.equal(st.tagAborted, 0);
      assert.equal(st.tagFinished, 1);
    });

    h.test(S, "server stream: a stalled reader's call ends with DEADLINE_EXCEEDED", async () => {
      const tag = newTag("deadline-stream");
      const it = s.c.client
        .produce(countRequest(tag, 1_000_000, 16), { timeoutMs: 300 })
        [Symbol.asyncIterator]();
      const first = await it.next();
      assert.equal(first.done, false);
      await sleep(500);
      await expectCode(
        async () => {
          for (let k = 0; k < 1_000_000; k++) if ((await it.next()).done) return k;
          return -1;
        },
        Code.DeadlineExceeded,
        "reading the rest after the deadline",
      );
      await sawAbort(tag);
    });

    h.test(S, "client stream: a stream that never ends → DEADLINE_EXCEEDED", async () => {
      const gate = createGate(10_000);
      async function* slow(): AsyncGenerator<StreamItem> {
        yield { seq: 0, text: "", note: "" };
        await gate.promise;
      }
      try {
        await expectCode(
          s.c.client.sum(slow(), { timeoutMs: 200 }),
          Code.DeadlineExceeded,
          "sum with an open stream",
        );
      } finally {
        gate.open();
      }
      const after = await s.c.client.echo({ id: 1, text: "ok" });
      assert.equal(after.text, "ok");
    });
  });
}
