/** Suite: the four call kinds, metadata, trailers, every status code, multiplexing. */
import assert from "node:assert/strict";
import { describe } from "node:test";
import { Code, codeName } from "@nearwire/core";
import { checksumStep, type StreamItem } from "../conformance-service.js";
import type { SuiteHarness } from "../suite-harness.js";
import { collect, expectCode } from "../wait.js";
import { countRequest, newTag, sharedServer } from "./shared-server.js";

const S = "call kinds";

/** All four call kinds, metadata in, trailers out with errors, every code, multiplexing. */
export function callKindsSuite(h: SuiteHarness): void {
  describe(S, () => {
    const s = sharedServer(h);

    h.test(S, "unary: echo returns its request", async () => {
      const reply = await s.c.client.echo({ id: 7, text: "héllo ✓" });
      assert.deepEqual({ id: reply.id, text: reply.text }, { id: 7, text: "héllo ✓" });
    });

    h.test(S, "server stream: every item arrives, in order, then the stream ends", async () => {
      const items = await collect(s.c.client.count(countRequest("", 10, 8)));
      assert.deepEqual(
        items.map((i) => [i.seq, i.text]),
        Array.from({ length: 10 }, (_, k) => [k, "xxxxxxxx"]),
      );
    });

    h.test(S, "client stream: the handler gets every item in order and answers once", async () => {
      const items: StreamItem[] = Array.from({ length: 10 }, (_, k) => ({
        seq: k,
        text: `t${k}`,
        note: "",
      }));
      const reply = await s.c.client.sum(items);
      assert.equal(reply.count, 10);
      assert.equal(reply.firstBadSeq, -1);
      assert.equal(reply.checksum, items.reduce(checksumStep, 0));
    });

    h.test(S, "bidi: each item is answered before the next is sent (ping-pong)", async () => {
      let answered = -1;
      let wake: (() => void) | undefined;
      async function* requests(): AsyncGenerator<StreamItem> {
        for (let k = 0; k < 20; k++) {
          yield { seq: k, text: `b${k}`, note: "" };
          if (answered < k) await new Promise<void>((r) => (wake = r));
        }
      }
      for await (const item of s.c.client.bidi(requests())) {
        assert.equal(item.seq, answered + 1);
        assert.equal(item.text, `b${item.seq}`);
        answered = item.seq;
        wake?.();
      }
      assert.equal(answered, 19);
    });

    h.test(S, "metadata reaches the handler in all four call kinds", async () => {
      const md = { "x-note": "n1", "x-other": "v with spaces, symbols !#$%&()" };
      const reply = await s.c.client.metadata({}, { metadata: md });
      assert.equal(reply.metadata["x-note"], "n1");
      assert.equal(reply.metadata["x-other"], "v with spaces, symbols !#$%&()");
      const items = await collect(s.c.client.count(countRequest("", 2), { metadata: md }));
      assert.deepEqual(
        items.map((i) => i.note),
        ["n1", "n1"],
      );
      const sum = await s.c.client.sum([{ seq: 0, text: "", note: "" }], { metadata: md });
      assert.equal(sum.note, "n1");
      const tag = newTag("bidi-md");
      const echoed = await collect(
        s.c.client.bidi([{ seq: 0, text: "a", note: "" }], { metadata: { "x-tag": tag } }),
      );
      assert.equal(echoed.length, 1);
      const stats = await s.c.client.stats({ tag });
      assert.equal(stats.tagStarted, 1, "bidi handler saw x-tag");
    });

    h.test(S, "the handler sees its method path and the deadline", async () => {
      const plain = await s.c.client.metadata({});
      assert.equal(plain.method, "/nearwire.conformance.Conformance/metadata");
      assert.equal(plain.deadlineInMs, -1);
      const timed = await s.c.client.metadata({}, { timeoutMs: 10_000 });
      assert.ok(
        timed.deadlineInMs > 0 && timed.deadlineInMs <= 10_000,
        `deadlineInMs ${timed.deadlineInMs}`,
      );
    });

    h.test(S, "every status code 1–16 round-trips with its trailers", async () => {
      for (let code = 1 as Code; code <= Code.Unauthenticated; code++) {
        const trailers = { "x-code": codeName(code), "x-extra": `t${code}` };
        const err = await expectCode(
          s.c.client.fail({ code, message: `fail ${code}`, trailers }),
          code,
          `fail(${codeName(code)})`,
        );
        assert.equal(err.metadata["x-code"], codeName(code), `trailers of ${codeName(code)}`);
        assert.equal(err.metadata["x-extra"], `t${code}`, `trailers of ${codeName(code)}`);
      }
      const after = await s.c.client.echo({ id: 1, text: "still fine" });
      assert.equal(after.text, "still fine");
    });

    h.test(S, "1,000 concurrent unary calls are each answered with their own value", async () => {
      const n = 1000;
      const replies = await Promise.all(
        Array.from({ length: n }, (_, i) => s.c.client.echo({ id: i, text: `m${i}` })),
      );
      replies.forEach((r, i) => {
        assert.equal(r.id, i);
        assert.equal(r.text, `m${i}`);
      });
    });

    h.test(S, "50 concurrent server streams on one connection stay separate", async () => {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          collect(s.c.client.count(countRequest("", i + 1, i % 7))),
        ),
      );
      results.forEach((items, i) => {
        assert.equal(items.length, i + 1, `stream ${i}`);
        items.forEach((item, k) => {
          assert.equal(item.seq, k);
          assert.equal(item.text.length, i % 7);
        });
      });
    });
  });
}
