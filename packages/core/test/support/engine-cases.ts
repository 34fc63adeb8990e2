/**
 * The RPC engine's behaviour cases, one list run over each way core wires the engine: the
 * test channel pair (rpc-engine.test.ts) and the memory transport (memory-transport.test.ts).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Client, Code, type NearwireError } from "../../src/index.js";
import type { NumService, Seen } from "./num-service.js";

/** A started server and a connected client of {@link NumService}. */
export interface EngineUnderTest {
  client: Client<typeof NumService>;
  seen: Seen;
  close(): Promise<void>;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const v of iterable) out.push(v);
  return out;
}

/** Registers the engine cases over `start` (one fresh server and client per case). */
export function engineCases(name: string, start: () => Promise<EngineUnderTest>): void {
  function test(title: string, fn: (e: EngineUnderTest) => Promise<void>): void {
    it(title, async () => {
      const e = await start();
      try {
        await fn(e);
      } finally {
        await e.close();
      }
    });
  }

  describe(`rpc engine cases: ${name}`, () => {
    test("runs all four call kinds", async ({ client }) => {
      assert.deepEqual(await client.echo({ n: 41 }), { n: 42 });
      assert.deepEqual(
        await collect(client.count({ n: 100 })),
        Array.from({ length: 100 }, (_, n) => ({ n })),
      );
      assert.deepEqual(await client.sum(Array.from({ length: 100 }, (_, n) => ({ n }))), {
        n: 4950,
      });
      assert.deepEqual(await collect(client.bidi([{ n: 1 }, { n: 2 }, { n: 3 }])), [
        { n: 2 },
        { n: 4 },
        { n: 6 },
      ]);
    });

    test("a request stream that throws fails its call CANCELLED, whatever it throws", async ({
      client,
    }) => {
      for (const [thrown, text] of [
        [new Error("boom"), "boom"],
        ["a string", "a string"],
        [undefined, "undefined"],
      ] as const) {
        async function* requests() {
          yield { n: 1 };
          yield { n: 2 };
          throw thrown;
        }
        await assert.rejects(client.sum(requests()), (err: NearwireError) => {
          assert.equal(err.code, Code.Canceled, text);
          assert.equal(err.message, `request stream failed: ${text}`);
          return true;
        });
      }
      // The connection keeps serving, streams included.
      assert.deepEqual(await client.sum([{ n: 2 }, { n: 3 }]), { n: 5 });
      assert.deepEqual(await client.echo({ n: 1 }), { n: 2 });
    });

    test("multiplexes concurrent calls, each answered with its own value", async ({ client }) => {
      const res = await Promise.all(Array.from({ length: 500 }, (_, n) => client.echo({ n })));
      assert.deepEqual(
        res.map((r) => r.n),
        Array.from({ length: 500 }, (_, n) => n + 1),
      );
    });

    test("carries every status code and its trailers; the connection stays usable", async ({
      client,
    }) => {
      for (let code = 1; code <= 16; code++) {
        await assert.rejects(client.echo({ n: -code }), (e: NearwireError) => {
          assert.equal(e.code, code);
          assert.equal(e.metadata.why, "negative");
          return true;
        });
      }
      assert.deepEqual(await client.echo({ n: 7 }), { n: 8 });
    });

    test("deadline: DEADLINE_EXCEEDED on the client, the handler aborted", async ({
      client,
      seen,
    }) => {
      await assert.rejects(client.sleep({ n: 5000 }, { timeoutMs: 20 }), {
        code: Code.DeadlineExceeded,
      });
      await new Promise((r) => setTimeout(r, 30));
      assert.equal(seen.aborted, 1);
    });

    test("cancellation by AbortSignal reaches the handler", async ({ client, seen }) => {
      const ac = new AbortController();
      const p = client.sleep({ n: 5000 }, { signal: ac.signal });
      setTimeout(() => ac.abort(), 10);
      await assert.rejects(p, { code: Code.Canceled });
      await new Promise((r) => setTimeout(r, 30));
      assert.equal(seen.aborted, 1);
    });

    test("stream credit: a server stream nobody reads stops after the window, then resumes", async ({
      client,
      seen,
    }) => {
      const it = client.count({ n: 10_000 })[Symbol.asyncIterator]();
      assert.deepEqual((await it.next()).value, { n: 0 });
      await new Promise((r) => setTimeout(r, 50));
      assert.ok(seen.produced <= 70, `produced ${seen.produced} ahead of a stalled reader`);
      let n = 1;
      for (;;) {
        const r = await it.next();
        if (r.done) break;
        assert.equal(r.value.n, n++);
      }
      assert.equal(n, 10_000);
    });
  });
}
