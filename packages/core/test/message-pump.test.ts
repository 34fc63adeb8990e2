import assert from "node:assert/strict";
import { test } from "node:test";
import { NearwireError } from "../src/nearwire-error.js";
import { INITIAL_CREDIT } from "../src/rpc/envelope.js";
import { MessagePump, type PumpSink } from "../src/rpc/message-pump.js";
import { nextNow } from "../src/rpc/next-now.js";
import { OutboundCredit } from "../src/rpc/outbound-credit.js";

/** A sink that records what was sent and how the pump stopped. */
function recorder(opts: { room?: (n: number) => boolean; throwAt?: number; endAt?: number } = {}) {
  const sent: unknown[] = [];
  let drain: (() => void) | undefined;
  let resolveStopped!: (r: { error: unknown; failed: boolean }) => void;
  const stopped = new Promise<{ error: unknown; failed: boolean }>((r) => {
    resolveStopped = r;
  });
  let stopCount = 0;
  const sink: PumpSink = {
    ended: () => opts.endAt !== undefined && sent.length >= opts.endAt,
    send(value) {
      if (opts.throwAt === sent.length) throw new Error(`cannot encode ${String(value)}`);
      sent.push(value);
      return opts.room === undefined ? true : opts.room(sent.length);
    },
    drained: () =>
      new Promise<void>((r) => {
        drain = r;
      }),
    finished() {
      stopCount++;
      resolveStopped({ error: undefined, failed: false });
    },
    failed(error) {
      stopCount++;
      resolveStopped({ error, failed: true });
    },
  };
  return {
    sink,
    sent,
    stopped,
    stops: () => stopCount,
    drain: () => drain?.(),
    waitingForDrain: () => drain !== undefined,
  };
}

/** A source that counts how it was closed. */
function counted(n: number, failAt = -1) {
  const state = { closed: 0, produced: 0 };
  async function* gen() {
    try {
      for (let i = 0; i < n; i++) {
        if (i === failAt) throw new Error(`source failed at ${i}`);
        state.produced++;
        yield i;
      }
    } finally {
      state.closed++;
    }
  }
  return { source: gen(), state };
}

test("sends every message in order, then stops without error; the source ran to its end", async () => {
  const { source, state } = counted(5);
  const r = recorder();
  new MessagePump(source, new OutboundCredit(), r.sink).start();
  assert.deepEqual(await r.stopped, { error: undefined, failed: false });
  assert.deepEqual(r.sent, [0, 1, 2, 3, 4]);
  assert.equal(state.closed, 1);
  assert.equal(r.stops(), 1);
});

test("the call ended: sends nothing more and closes the source (its finally runs)", async () => {
  const { source, state } = counted(100);
  const r = recorder({ endAt: 3 });
  new MessagePump(source, new OutboundCredit(), r.sink).start();
  assert.deepEqual(await r.stopped, { error: undefined, failed: false });
  assert.deepEqual(r.sent, [0, 1, 2]);
  assert.equal(state.closed, 1);
  assert.ok(state.produced <= 4, `produced ${state.produced}`);
});

test("a send that throws closes the source and stops with that error", async () => {
  const { source, state } = counted(10);
  const r = recorder({ throwAt: 2 });
  new MessagePump(source, new OutboundCredit(), r.sink).start();
  const { error, failed } = await r.stopped;
  assert.equal(failed, true);
  assert.match((error as Error).message, /cannot encode 2/);
  assert.deepEqual(r.sent, [0, 1]);
  assert.equal(state.closed, 1);
});

test("a source that throws stops the pump with its error; what it yielded before was sent", async () => {
  const { source, state } = counted(10, 3);
  const r = recorder();
  new MessagePump(source, new OutboundCredit(), r.sink).start();
  const { error, failed } = await r.stopped;
  assert.equal(failed, true);
  assert.match((error as Error).message, /source failed at 3/);
  assert.deepEqual(r.sent, [0, 1, 2]);
  assert.equal(state.closed, 1);
});

test("waits for credit after the initial window, resumes on a grant, fails when the call fails", async () => {
  const credit = new OutboundCredit();
  const { source, state } = counted(INITIAL_CREDIT + 10);
  const r = recorder();
  new MessagePump(source, credit, r.sink).start();
  await new Promise((res) => setTimeout(res, 20));
  assert.equal(r.sent.length, INITIAL_CREDIT);
  credit.grant(2);
  await new Promise((res) => setTimeout(res, 20));
  assert.equal(r.sent.length, INITIAL_CREDIT + 2);
  assert.equal(r.stops(), 0);
  const cancelled = new NearwireError(1, "cancelled");
  credit.fail(cancelled);
  const { error, failed } = await r.stopped;
  assert.equal(failed, true);
  assert.equal(error, cancelled);
  assert.equal(state.closed, 1);
  assert.equal(r.sent.length, INITIAL_CREDIT + 2);
});

test("waits for drained() when a send says the channel is full, then goes on", async () => {
  const { source } = counted(6);
  const r = recorder({ room: (n) => n !== 2 });
  new MessagePump(source, new OutboundCredit(), r.sink).start();
  await new Promise((res) => setTimeout(res, 20));
  assert.deepEqual(r.sent, [0, 1]);
  assert.equal(r.waitingForDrain(), true);
  r.drain();
  assert.deepEqual(await r.stopped, { error: undefined, failed: false });
  assert.deepEqual(r.sent, [0, 1, 2, 3, 4, 5]);
});

test("a sync iterable is read like for-await reads it: promise values are awaited", async () => {
  const r = recorder();
  new MessagePump([1, Promise.resolve(2), 3], new OutboundCredit(), r.sink).start();
  assert.deepEqual(await r.stopped, { error: undefined, failed: false });
  assert.deepEqual(r.sent, [1, 2, 3]);
});

test("something that is not iterable, or an iterator that returns a non-object, fails with a TypeError", async () => {
  const r = recorder();
  new MessagePump(42 as unknown as Iterable<unknown>, new OutboundCredit(), r.sink).start();
  const a = await r.stopped;
  assert.equal(a.failed, true);
  assert.ok(a.error instanceof TypeError);

  const r2 = recorder();
  const bad = { [Symbol.asyncIterator]: () => ({ next: async () => 7 }) };
  new MessagePump(bad as unknown as AsyncIterable<unknown>, new OutboundCredit(), r2.sink).start();
  const b = await r2.stopped;
  assert.equal(b.failed, true);
  assert.ok(b.error instanceof TypeError);
  assert.deepEqual(r2.sent, []);
});

test("after a throw, a failing return() does not replace the first error", async () => {
  let returned = 0;
  const source = {
    [Symbol.asyncIterator]: () => ({
      next: async () => ({ value: "x", done: false }),
      return: async () => {
        returned++;
        throw new Error("return failed");
      },
    }),
  };
  const r = recorder({ throwAt: 0 });
  new MessagePump(source, new OutboundCredit(), r.sink).start();
  const { error, failed } = await r.stopped;
  assert.equal(failed, true);
  assert.match((error as Error).message, /cannot encode x/);
  assert.equal(returned, 1);
});

test("a source whose [Symbol.asyncIterator]() throws stops the pump with that error; start() does not throw", async () => {
  const source = {
    [Symbol.asyncIterator]() {
      throw new Error("no iterator today");
    },
  };
  const r = recorder();
  assert.doesNotThrow(() => new MessagePump(source, new OutboundCredit(), r.sink).start());
  const { error, failed } = await r.stopped;
  assert.equal(failed, true);
  assert.match((error as Error).message, /no iterator today/);
  assert.deepEqual(r.sent, []);
});

/**
 * A source whose iterator answers `[nextNow]()` for the values `ready(i)` says are at hand
 * (throwing at `throwAt`), and `next()` for the rest; counts the calls of each and `return()`.
 */
function withNextNow(n: number, ready: (i: number) => boolean, throwAt = -1) {
  const calls = { now: 0, next: 0, returned: 0 };
  let i = 0;
  const result = (): IteratorResult<number> =>
    i < n ? { value: i++, done: false } : { value: undefined, done: true };
  const iterator = {
    [nextNow](): IteratorResult<number> | undefined {
      calls.now++;
      if (i === throwAt) throw new Error(`not now: ${i}`);
      return i >= n || ready(i) ? result() : undefined;
    },
    next(): Promise<IteratorResult<number>> {
      calls.next++;
      return new Promise((res) => setTimeout(() => res(result()), 1));
    },
    return(): Promise<IteratorResult<number>> {
      calls.returned++;
      return Promise.resolve({ value: undefined, done: true });
    },
  };
  return { source: { [Symbol.asyncIterator]: () => iterator }, calls };
}

test("nextNow: messages at hand go out without next(); next() only where it answers undefined, in order", async () => {
  const { source, calls } = withNextNow(20, (i) => i % 5 !== 3);
  const r = recorder();
  new MessagePump(source, new OutboundCredit(), r.sink).start();
  assert.deepEqual(await r.stopped, { error: undefined, failed: false });
  assert.deepEqual(
    r.sent,
    Array.from({ length: 20 }, (_, i) => i),
  );
  assert.equal(calls.next, 4, "next() for 3, 8, 13 and 18 only");
  assert.equal(calls.returned, 0, "a source that ran to its end is not closed");
});

test("nextNow: every message at hand, the whole stream goes out in start() itself", () => {
  const { source, calls } = withNextNow(10, () => true);
  const r = recorder();
  new MessagePump(source, new OutboundCredit(), r.sink).start();
  assert.equal(r.sent.length, 10, "sent synchronously");
  assert.equal(r.stops(), 1);
  assert.equal(calls.next, 0);
});

test("nextNow: credit and room still hold the pump back; it resumes through nextNow", async () => {
  const credit = new OutboundCredit();
  const { source, calls } = withNextNow(INITIAL_CREDIT + 10, () => true);
  const r = recorder({ room: (n) => n !== 3 });
  new MessagePump(source, credit, r.sink).start();
  assert.equal(r.sent.length, 3, "stops at a full channel");
  r.drain();
  await new Promise((res) => setTimeout(res, 10));
  assert.equal(r.sent.length, INITIAL_CREDIT, "stops at the end of the credit");
  credit.grant(10);
  assert.deepEqual(await r.stopped, { error: undefined, failed: false });
  assert.equal(r.sent.length, INITIAL_CREDIT + 10);
  assert.equal(calls.next, 0);
});

test("nextNow: a throw stops the pump with that error, as a rejected next() does (no return())", async () => {
  const { source, calls } = withNextNow(10, () => true, 4);
  const r = recorder();
  new MessagePump(source, new OutboundCredit(), r.sink).start();
  const { error, failed } = await r.stopped;
  assert.equal(failed, true);
  assert.match((error as Error).message, /not now: 4/);
  assert.deepEqual(r.sent, [0, 1, 2, 3]);
  assert.equal(calls.returned, 0);
});

test("nextNow: the call ends mid-loop: nothing more is sent and the source is closed once", async () => {
  const { source, calls } = withNextNow(100, () => true);
  const r = recorder({ endAt: 7 });
  new MessagePump(source, new OutboundCredit(), r.sink).start();
  assert.deepEqual(await r.stopped, { error: undefined, failed: false });
  assert.deepEqual(r.sent, [0, 1, 2, 3, 4, 5, 6]);
  assert.equal(calls.returned, 1);
  assert.equal(r.stops(), 1);
});
