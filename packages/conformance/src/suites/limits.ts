/** Suite: maxMessageBytes enforced both ways, to the byte, without losing the connection. */
import assert from "node:assert/strict";
import { describe } from "node:test";
import { Code, type Codec } from "@nearwire/core";
import { conformanceService, type EchoMessage, type StreamItem } from "../conformance-service.js";
import type { SuiteHarness } from "../suite-harness.js";
import { collect, expectCode } from "../wait.js";
import { countRequest, sharedServer } from "./shared-server.js";

const S = "limits";

/**
 * The text length that makes `make(text)` encode to exactly `bytes` with `codec`. Throws if the
 * codec's sizes jump over `bytes` (choose another limit then).
 */
export function exactTextLength<T>(
  codec: Codec,
  type: { name: string },
  make: (text: string) => T,
  bytes: number,
): number {
  const mc = codec.forType<T>(type);
  const size = (len: number) => mc.encode(make("x".repeat(len))).byteLength;
  let len = Math.max(0, bytes - size(0));
  for (let step = 0; step < 64 && size(len) !== bytes; step++) len += size(len) < bytes ? 1 : -1;
  if (size(len) !== bytes)
    throw new Error(`codec ${codec.name} cannot encode ${type.name} to exactly ${bytes} B`);
  return len;
}

/** maxMessageBytes: exactly the limit passes, one byte over fails its call only, both ways. */
export function limitsSuite(h: SuiteHarness): void {
  const max = h.options.maxMessageBytes;
  const requires = ["messageLimits" as const];
  describe(S, () => {
    const s = sharedServer(h, { maxMessageBytes: max });
    const echoType = conformanceService.methods.echo.input;
    const itemType = conformanceService.methods.sum.input;
    const echoText = (bytes: number) =>
      exactTextLength(h.codec, echoType, (text): EchoMessage => ({ id: 1, text }), bytes);
    const itemText = (bytes: number) =>
      exactTextLength(h.codec, itemType, (text): StreamItem => ({ seq: 0, text, note: "" }), bytes);
    const stillWorks = async () => {
      const r = await s.c.client.echo({ id: 9, text: "after" });
      assert.equal(r.text, "after", "the next call on the connection");
    };

    h.test(
      S,
      `a request (and response) of exactly maxMessageBytes (${max} B) succeeds`,
      async () => {
        const text = "x".repeat(echoText(max));
        const reply = await s.c.client.echo({ id: 1, text });
        assert.equal(reply.text.length, text.length);
        assert.equal(reply.text, text);
      },
      { requires },
    );

    h.test(
      S,
      "a request one byte over → RESOURCE_EXHAUSTED message-too-large, and the connection keeps working",
      async () => {
        const text = "x".repeat(echoText(max + 1));
        const e = await expectCode(
          s.c.client.echo({ id: 1, text }),
          Code.ResourceExhausted,
          "echo of max+1 B",
        );
        assert.equal(e.reason, "message-too-large", e.message);
        await stillWorks();
      },
      { requires },
    );

    h.test(
      S,
      "a response of exactly maxMessageBytes succeeds",
      async () => {
        const textLength = echoText(max);
        const reply = await s.c.client.generate({ id: 1, textLength });
        assert.equal(reply.text.length, textLength);
      },
      { requires },
    );

    h.test(
      S,
      "a response one byte over → RESOURCE_EXHAUSTED message-too-large, and the connection keeps working",
      async () => {
        const textLength = echoText(max + 1);
        const e = await expectCode(
          s.c.client.generate({ id: 1, textLength }),
          Code.ResourceExhausted,
          "generate of max+1 B",
        );
        assert.equal(e.reason, "message-too-large", e.message);
        await stillWorks();
      },
      { requires },
    );

    h.test(
      S,
      "a streamed response item over the limit fails its call, not the connection",
      async () => {
        const payloadBytes = itemText(max + 1);
        await expectCode(
          collect(s.c.client.count(countRequest("", 3, payloadBytes))),
          Code.ResourceExhausted,
          "count with max+1 B items",
        );
        const ok = await collect(s.c.client.count(countRequest("", 1, itemText(max))));
        assert.equal(ok.length, 1, "one item of exactly max B");
        await stillWorks();
      },
      { requires },
    );

    h.test(
      S,
      "a streamed request item over the limit fails its call, not the connection",
      async () => {
        const big = "x".repeat(itemText(max + 1));
        await expectCode(
          s.c.client.sum([
            { seq: 0, text: "", note: "" },
            { seq: 1, text: big, note: "" },
          ]),
          Code.ResourceExhausted,
          "sum with a max+1 B item",
        );
        await stillWorks();
      },
      { requires },
    );
  });
}
