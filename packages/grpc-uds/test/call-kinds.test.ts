import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { waitFor } from "@nearwire/conformance";
import {
  type ClientConnection,
  Code,
  forEachMessage,
  jsonCodec,
  NearwireError,
  nextNow,
} from "@nearwire/core";
import { createGrpcTransport } from "../src/index.js";
import { type ServerChild, startServer, tempDir } from "./support/servers.js";
import { testService } from "./support/test-service.js";

async function rejects(promise: Promise<unknown>, code: Code): Promise<NearwireError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof NearwireError, `expected NearwireError, got ${String(err)}`);
    assert.equal(err.code, code, `code ${err.code} (${err.message}) != ${code}`);
    return err;
  }
  assert.fail(`expected rejection with code ${code}`);
}

async function collect<T>(iterable: AsyncIterable<T>, limit = 100_000): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) {
    out.push(item);
    if (out.length >= limit) break;
  }
  return out;
}

describe("grpc-uds call kinds over a unix socket (server in a child process)", () => {
  const tmp = tempDir();
  let server: ServerChild;
  let connection: ClientConnection;
  let test: ReturnType<typeof makeClient>;
  const makeClient = (c: ClientConnection) => c.client(testService, { codec: jsonCodec });
  type Stats = Awaited<ReturnType<typeof test.stats>>;
  /** For waitFor: true once one more handler has seen its signal abort than at `baseline`. */
  const handlerAborted = async (baseline: Stats) =>
    (await test.stats({ id: 0, text: "" })).aborted === baseline.aborted + 1 || undefined;
  /** For waitFor: true once one more handler's request stream failed than at `baseline`. */
  const requestsCancelled = async (baseline: Stats) =>
    (await test.stats({ id: 0, text: "" })).requestsCancelled === baseline.requestsCancelled + 1 ||
    undefined;

  before(async () => {
    server = await startServer(`unix:${tmp.dir}/s.sock`);
    connection = await createGrpcTransport({ address: server.address }).connect();
    test = makeClient(connection);
  });
  after(async () => {
    await connection?.close();
    await server?.stop();
    tmp.cleanup();
  });

  it("unary round-trips a message", async () => {
    assert.deepEqual(await test.echo({ id: 7, text: "héllo" }), { id: 7, text: "héllo" });
  });

  it("unary messages of a method alternating between large and small round-trip intact", async () => {
    // Each call starts its in-place encoding from the size of the last call's first message:
    // a small one after a large one goes through a send-pool buffer, a large one after a small
    // one is encoded the usual way first; both must arrive whole.
    const sizes = [100_000, 10, 3, 70_000, 70_000, 0, 200_000, 5];
    for (const [i, n] of sizes.entries()) {
      const text = String.fromCharCode(97 + (i % 26)).repeat(n);
      assert.deepEqual(await test.echo({ id: i, text }), { id: i, text }, `call ${i}: ${n} chars`);
    }
  });

  it("runs 200 unary calls concurrently", async () => {
    const ids = Array.from({ length: 200 }, (_, i) => i);
    const replies = await Promise.all(ids.map((id) => test.echo({ id, text: "x" })));
    assert.deepEqual(
      replies.map((r) => r.id),
      ids,
    );
  });

  it("server streaming delivers every item in order", async () => {
    const items = await collect(test.count({ n: 500 }));
    assert.deepEqual(
      items.map((i) => i.seq),
      Array.from({ length: 500 }, (_, i) => i),
    );
  });

  it("client streaming from a sync and an async iterable", async () => {
    const sync = Array.from({ length: 300 }, (_, seq) => ({ seq }));
    assert.deepEqual(await test.sum(sync), { n: 300 });
    async function* gen() {
      for (let seq = 0; seq < 300; seq++) yield { seq };
    }
    assert.deepEqual(await test.sum(gen()), { n: 300 });
  });

  it("bidi streaming answers each item", async () => {
    async function* gen() {
      for (let seq = 0; seq < 300; seq++) yield { seq };
    }
    const items = await collect(test.bidi(gen()));
    assert.deepEqual(
      items.map((i) => i.seq),
      Array.from({ length: 300 }, (_, i) => i * 2),
    );
  });

  it("status codes 1..16 and trailers arrive one to one", async () => {
    for (let code = 1; code <= 16; code++) {
      const err = await rejects(
        test.fail({ code, message: `m${code}`, trailers: { "x-t": `v${code}` } }),
        code,
      );
      assert.equal(err.metadata["x-t"], `v${code}`);
    }
  });

  it("a handler error in a server stream keeps its code and ctx.trailers after the items sent", async () => {
    const seen: number[] = [];
    const err = await rejects(
      (async () => {
        for await (const item of test.count({ n: 10, failAfter: 3, failCode: Code.Aborted }))
          seen.push(item.seq);
      })(),
      Code.Aborted,
    );
    assert.deepEqual(seen, [0, 1, 2]);
    assert.equal(err.metadata["x-failed-at"], "3");
  });

  it("request metadata reaches the handler; ctx.trailers are sent on success", async () => {
    const reply = await test.seen(
      { id: 5, text: "" },
      { metadata: { "x-note": "hi", "x-other": "2" } },
    );
    assert.deepEqual(reply.metadata, { "x-note": "hi", "x-other": "2" });
    assert.equal(reply.method, "/nearwire.test.Test/seen");
    assert.equal(reply.deadlineInMs, -1);
  });

  it("binary metadata (-bin keys) travels as base64 text", async () => {
    const value = Buffer.from([0, 1, 2, 250, 255]).toString("base64");
    const reply = await test.seen({ id: 1, text: "" }, { metadata: { "x-raw-bin": value } });
    assert.equal(reply.metadata["x-raw-bin"], value);
  });

  it("the handler sees the deadline", async () => {
    const reply = await test.seen({ id: 1, text: "" }, { timeoutMs: 60_000 });
    assert.ok(reply.deadlineInMs > 0 && reply.deadlineInMs <= 60_000, String(reply.deadlineInMs));
  });

  it("a passed deadline fails with DEADLINE_EXCEEDED and aborts the handler's signal", async () => {
    const before = await test.stats({ id: 0, text: "" });
    await rejects(test.sleep({ ms: 30_000 }, { timeoutMs: 100 }), Code.DeadlineExceeded);
    await waitFor("the handler's abort", () => handlerAborted(before), { timeoutMs: 10_000 });
    assert.deepEqual(await test.echo({ id: 1, text: "after" }), { id: 1, text: "after" });
  });

  it("aborting the client signal cancels the call on both sides", async () => {
    const before = await test.stats({ id: 0, text: "" });
    const ac = new AbortController();
    const call = test.sleep({ ms: 30_000 }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    await rejects(call, Code.Canceled);
    await waitFor("the handler's abort", () => handlerAborted(before), { timeoutMs: 10_000 });
  });

  it("an already aborted signal fails at once with CANCELLED", async () => {
    await rejects(test.echo({ id: 1, text: "" }, { signal: AbortSignal.abort() }), Code.Canceled);
  });

  it("a server stream's call starts at its first next(): one never iterated or closed first sends nothing", async () => {
    const before = await test.stats({ id: 0, text: "" });
    const idle = test.count({ n: 3 });
    const closed = test.count({ n: 3 });
    assert.deepEqual(await closed[Symbol.asyncIterator]().return?.(), {
      value: undefined,
      done: true,
    });
    const items = await collect(test.count({ n: 3 }));
    assert.deepEqual(
      items.map((i) => i.seq),
      [0, 1, 2],
    );
    // Calls on one connection run in order: had either stream been sent, its handler would
    // have finished by now too.
    const after = await test.stats({ id: 0, text: "" });
    assert.equal(after.finished, before.finished + 1);
    await idle[Symbol.asyncIterator]().return?.(); // never started: nothing to cancel
  });

  it("a server stream with an aborted signal fails its first next() with CANCELLED, then is done", async () => {
    const ac = new AbortController();
    ac.abort();
    const stream = test.count({ n: 3 }, { signal: ac.signal })[Symbol.asyncIterator]();
    await rejects(stream.next(), Code.Canceled);
    assert.deepEqual(await stream.next(), { value: undefined, done: true });
    assert.deepEqual(await test.echo({ id: 5, text: "ok" }), { id: 5, text: "ok" });
  });

  it("a server stream gives messages already received through nextNow, with no next()", async () => {
    const stream = test.count({ n: 3 })[Symbol.asyncIterator]() as AsyncIterator<{
      seq: number;
    }> & { [nextNow]?: () => IteratorResult<{ seq: number }> | undefined };
    const takeNow = stream[nextNow];
    assert.equal(typeof takeNow, "function");
    assert.equal(takeNow?.call(stream), undefined, "nothing at hand before the call started");
    assert.deepEqual(await stream.next(), { value: { seq: 0 }, done: false });
    const rest: IteratorResult<{ seq: number }>[] = [];
    await waitFor(
      "the rest of the stream at hand",
      () => {
        const r = takeNow?.call(stream);
        if (r !== undefined) rest.push(r);
        return rest.at(-1)?.done === true || undefined;
      },
      { timeoutMs: 10_000, intervalMs: 2 },
    );
    assert.deepEqual(rest, [
      { value: { seq: 1 }, done: false },
      { value: { seq: 2 }, done: false },
      { value: undefined, done: true },
    ]);
  });

  it("forEachMessage starts a server stream's call and takes every message, waiting by callback", async () => {
    const seen: number[] = [];
    const stream = test.count({ n: 50 })[Symbol.asyncIterator]();
    assert.equal(
      await forEachMessage(stream, (m) => {
        seen.push(m.seq);
      }),
      false,
    );
    assert.deepEqual(
      seen,
      Array.from({ length: 50 }, (_, i) => i),
    );
    assert.deepEqual(await stream.next(), { value: undefined, done: true });
  });

  it("forEachMessage over a server stream with an aborted signal rejects with CANCELLED; the stream is then done", async () => {
    const before = await test.stats({ id: 0, text: "" });
    const stream = test.count({ n: 3 }, { signal: AbortSignal.abort() })[Symbol.asyncIterator]();
    let seen = 0;
    await rejects(
      forEachMessage(stream, () => {
        seen++;
      }),
      Code.Canceled,
    );
    assert.equal(seen, 0);
    assert.deepEqual(await stream.next(), { value: undefined, done: true });
    assert.deepEqual(await test.echo({ id: 6, text: "ok" }), { id: 6, text: "ok" });
    const after = await test.stats({ id: 0, text: "" });
    assert.equal(after.finished, before.finished, "no call was sent");
  });

  it("breaking out of a server stream cancels it on the server", async () => {
    const before = await test.stats({ id: 0, text: "" });
    const items = await collect(test.count({ n: 1_000_000 }), 5);
    assert.equal(items.length, 5);
    await waitFor("the handler's abort", () => handlerAborted(before), { timeoutMs: 10_000 });
  });

  it("aborting a server stream rejects the iteration with CANCELLED", async () => {
    const ac = new AbortController();
    let n = 0;
    await rejects(
      (async () => {
        for await (const _ of test.count({ n: 1_000_000 }, { signal: ac.signal })) {
          if (++n === 3) ac.abort();
        }
      })(),
      Code.Canceled,
    );
  });

  it("aborting a client stream: CANCELLED, the handler's signal aborts and its requests throw CANCELLED", async () => {
    const before = await test.stats({ id: 0, text: "" });
    const ac = new AbortController();
    async function* endless() {
      for (let seq = 0; seq < 1000; seq++) {
        yield { seq };
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    // Abort between writes (nothing queued): the case where grpc-js's cancel() alone would send
    // END_STREAM before RST_STREAM and the handler would see a clean end of input.
    setTimeout(() => ac.abort(), 100);
    await rejects(test.sum(endless(), { signal: ac.signal }), Code.Canceled);
    await waitFor("its requests to fail", () => requestsCancelled(before), { timeoutMs: 10_000 });
    assert.deepEqual(await test.echo({ id: 4, text: "ok" }), { id: 4, text: "ok" });
  });

  it("aborting a bidi call: CANCELLED, the handler's signal aborts and its requests throw CANCELLED", async () => {
    const before = await test.stats({ id: 0, text: "" });
    const ac = new AbortController();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    async function* one() {
      yield { seq: 1 };
      await gate;
    }
    try {
      await rejects(
        (async () => {
          for await (const item of test.bidi(one(), { signal: ac.signal })) {
            assert.equal(item.seq, 2);
            ac.abort();
          }
        })(),
        Code.Canceled,
      );
    } finally {
      release();
    }
    await waitFor("its requests to fail", () => requestsCancelled(before), { timeoutMs: 10_000 });
  });

  it("a failing request iterable cancels a client stream with its error", async () => {
    async function* gen() {
      yield { seq: 0 };
      throw new NearwireError(Code.DataLoss, "source broke");
    }
    await rejects(test.sum(gen()), Code.DataLoss);
    assert.deepEqual(await test.echo({ id: 2, text: "ok" }), { id: 2, text: "ok" });
  });

  it("close() fails calls in flight with CANCELLED closed, then every new call too", async () => {
    const other = await createGrpcTransport({ address: server.address }).connect();
    const c = makeClient(other);
    const call = c.sleep({ ms: 30_000 });
    await c.echo({ id: 1, text: "" });
    await other.close();
    assert.equal((await rejects(call, Code.Canceled)).reason, "closed");
    assert.equal((await rejects(c.echo({ id: 1, text: "" }), Code.Canceled)).reason, "closed");
    assert.equal(await other.closed, undefined);
    assert.deepEqual(await test.echo({ id: 3, text: "ok" }), { id: 3, text: "ok" });
  });
});
