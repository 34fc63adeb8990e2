/** Suite: the same calls give the same results, limits, timeouts and reasons on every transport. */
import assert from "node:assert/strict";
import { describe } from "node:test";
import { Code, type Codec, type MessageCodec } from "@nearwire/core";
import { conformanceService } from "../conformance-service.js";
import type { SuiteHarness } from "../suite-harness.js";
import { collect, expectCode, waitFor } from "../wait.js";
import { countRequest, newTag, sharedServer } from "./shared-server.js";

const S = "swap transparency";

/**
 * The promise of the README: swapping the transport leaves the caller's code as it is. The same
 * calls, with the same options, end the same way on every transport: the `timeoutMs` rule
 * (PROTOCOL.md §5.5), the `reason` of each error (the limits suite checks `message-too-large`),
 * the default message size limit, and what a connect
 * to an address where nothing listens says. Assertions read `code` and `reason` (and, where
 * the text is the point, the message).
 */
export function swapTransparencySuite(h: SuiteHarness): void {
  describe(S, () => {
    const s = sharedServer(h);
    const stillWorks = async () => {
      const r = await s.c.client.echo({ id: 7, text: "after" });
      assert.equal(r.text, "after", "the next call on the connection");
    };

    h.test(
      S,
      "timeoutMs 0, -1 and -Infinity fail at once with DEADLINE_EXCEEDED; the handler never runs",
      async () => {
        const tag = newTag("timeout-zero");
        for (const timeoutMs of [0, -1, Number.NEGATIVE_INFINITY]) {
          const e = await expectCode(
            s.c.client.sleep({ tag, ms: 0 }, { timeoutMs }),
            Code.DeadlineExceeded,
            `sleep with timeoutMs ${timeoutMs}`,
          );
          assert.match(e.message, /deadline has already passed/);
          await expectCode(
            collect(s.c.client.count(countRequest(tag, 1), { timeoutMs })),
            Code.DeadlineExceeded,
            `count with timeoutMs ${timeoutMs}`,
          );
        }
        await expectCode(
          s.c.client.sleep({ tag, ms: 0 }, { timeoutMs: Number.NaN }),
          Code.InvalidArgument,
          "sleep with timeoutMs NaN",
        );
        const st = await s.c.client.stats({ tag });
        assert.equal(st.tagStarted, 0, "no handler ran");
        await stillWorks();
      },
    );

    h.test(
      S,
      "timeoutMs 2^31 − 1, 2^31, 2^32 − 1 and 2^33 are honoured: the calls succeed",
      async () => {
        for (const timeoutMs of [2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 33]) {
          const reply = await s.c.client.sleep({ tag: "", ms: 20 }, { timeoutMs });
          assert.equal(reply.aborted, false, `timeoutMs ${timeoutMs}`);
          const items = await collect(s.c.client.count(countRequest("", 3), { timeoutMs }));
          assert.equal(items.length, 3, `count with timeoutMs ${timeoutMs}`);
        }
      },
    );

    h.test(S, "a request the server cannot decode: INVALID_ARGUMENT, decode-failed", async () => {
      const garbled = s.c.conn.client(conformanceService, { codec: garbling(h.codec, "encode") });
      const e = await expectCode(
        garbled.echo({ id: 1, text: "x" }),
        Code.InvalidArgument,
        "echo with undecodable bytes",
      );
      assert.equal(e.reason, "decode-failed", e.message);
      await stillWorks();
    });

    h.test(S, "codec mismatch: INVALID_ARGUMENT codec-mismatch, naming both codecs", async () => {
      const other = h.codec.name === "msgpack" ? "json" : "msgpack";
      const mismatched = s.c.conn.client(conformanceService, {
        codec: garbling(h.codec, "encode", other),
      });
      const e = await expectCode(
        mismatched.echo({ id: 1, text: "x" }),
        Code.InvalidArgument,
        `echo in ${other} to a ${h.codec.name} server`,
      );
      assert.equal(e.reason, "codec-mismatch", e.message);
      assert.match(e.message, new RegExp(`^client speaks ${other}, server ${h.codec.name}: `));
      assert.deepEqual(e.metadata, {}, "the codec trailer is not left in metadata");
      await stillWorks();
    });

    h.test(S, "a response the client cannot decode: INTERNAL, decode-failed", async () => {
      const garbled = s.c.conn.client(conformanceService, { codec: garbling(h.codec, "decode") });
      const e = await expectCode(
        garbled.echo({ id: 1, text: "x" }),
        Code.Internal,
        "echo whose response the client cannot decode",
      );
      assert.equal(e.reason, "decode-failed", e.message);
      await stillWorks();
    });

    /**
     * Starts a server with `graceMs`, connects, starts a 30 s `sleep` call (which keeps the
     * server draining until the grace period cuts it short), begins `server.stop()`, and hands
     * the call to `check`.
     */
    const whileClosing = async (
      graceMs: number,
      check: (c: Awaited<ReturnType<typeof h.connect>>, pending: Promise<unknown>) => Promise<void>,
    ): Promise<void> => {
      const server = await h.startServer({ graceMs });
      const c = await h.connect(server.address);
      try {
        const tag = newTag("closing");
        const pending = c.client.sleep({ tag, ms: 30_000 });
        pending.catch(() => {});
        await waitFor("the sleep handler to start", async () => {
          const st = await c.client.stats({ tag });
          return st.tagStarted >= 1 ? st : undefined;
        });
        const stopped = server.stop();
        await check(c, pending);
        await stopped;
      } finally {
        await h.disconnect(c);
      }
    };

    h.test(
      S,
      "a call the server's close cuts short: UNAVAILABLE, server-closing",
      () =>
        whileClosing(100, async (_c, pending) => {
          const e = await expectCode(pending, Code.Unavailable, "sleep while the server closes");
          assert.equal(e.reason, "server-closing", e.message);
        }),
      { timeoutMs: 30_000 },
    );

    h.test(
      S,
      "a new call on an open connection while the server drains: UNAVAILABLE, server-closing",
      () =>
        whileClosing(600, async (c, pending) => {
          const e = await waitFor("a call refused by the draining server", async () => {
            try {
              await c.client.echo({ id: 1, text: "late" }, { timeoutMs: 2000 });
              return undefined;
            } catch (err) {
              return err as { code: number; reason?: string; message: string };
            }
          });
          assert.equal(e.code, Code.Unavailable, e.message);
          assert.equal(e.reason, "server-closing", e.message);
          await expectCode(pending, Code.Unavailable, "the sleep cut short by the grace period");
        }),
      { timeoutMs: 30_000 },
    );

    h.test(
      S,
      "connect where nothing listens: UNAVAILABLE, nothing-listens, naming the address",
      async () => {
        const address = await h.newAddress();
        const transport = await h.transport(address);
        const e = await expectCode(transport.connect(), Code.Unavailable, "connect to nothing");
        assert.equal(e.reason, "nothing-listens", e.message);
        assert.match(e.message, /^nothing listens at .+ — is the server running\?/);
        const shown = address.replace(/^unix:(?!\/\/)/, "").replace(/^unix:\/\//, "");
        assert.ok(
          e.message.includes(shown.replace(/^unix-abstract:/, "")),
          `${e.message} names ${address}`,
        );
      },
    );

    h.test(S, "metadata and trailer keys arrive lower-case", async () => {
      const reply = await s.c.client.metadata({}, { metadata: { "X-Mixed-Case": "v" } });
      assert.equal(reply.metadata["x-mixed-case"], "v");
      assert.equal(reply.metadata["X-Mixed-Case"], undefined);
      const e = await expectCode(
        s.c.client.fail({ code: Code.NotFound, message: "m", trailers: { "X-Why": "w" } }),
        Code.NotFound,
        "fail with a trailer",
      );
      assert.deepEqual(e.metadata, { "x-why": "w" });
    });

    h.test(S, "the default message limit is the same: 3 MiB passes both ways", async () => {
      const n = 3 * 1024 * 1024;
      const reply = await s.c.client.echo({ id: 1, text: "y".repeat(n) });
      assert.equal(reply.text.length, n);
      const big = await s.c.client.generate({ id: 1, textLength: n });
      assert.equal(big.text.length, n);
    });
  });
}

/**
 * `codec` with its encoder (or decoder) of every type broken: bytes no codec decodes. It keeps
 * the codec's name unless `name` is given (then the server sees another codec: a mismatch).
 */
function garbling(codec: Codec, which: "encode" | "decode", name = codec.name): Codec {
  const garbage = new Uint8Array([0xc1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
  return {
    ...codec,
    name,
    forType<T>(type: { name: string }): MessageCodec<T> {
      const real = codec.forType<T>(type as never);
      if (which === "encode") {
        return { encode: () => garbage, decode: (b) => real.decode(b), decodesInPlace: false };
      }
      return {
        encode: (v) => real.encode(v),
        decode: () => {
          throw new Error("garbled on purpose");
        },
        decodesInPlace: false,
      };
    },
  };
}
