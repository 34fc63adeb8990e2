import assert from "node:assert/strict";
import { test } from "node:test";
import { Code } from "../src/code.js";
import { NearwireError } from "../src/nearwire-error.js";
import { InboundStream } from "../src/rpc/inbound-stream.js";
import { nextNow } from "../src/rpc/next-now.js";

/** Takes `n` messages from the stream (each must be there). */
async function take(s: InboundStream<number>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await s.next();
    assert.equal(r.done, false);
    out.push(r.value as number);
  }
  return out;
}

test("buffered messages come out in order across wrap-around and growth; each take is reported", async () => {
  const s = new InboundStream<number>();
  let consumed = 0;
  s.bind(
    () => consumed++,
    () => assert.fail("not abandoned"),
  );
  let next = 0;
  let expected = 0;
  const push = (n: number) => {
    for (let i = 0; i < n; i++) s.push(next++);
  };
  const check = async (n: number) => {
    assert.deepEqual(
      await take(s, n),
      Array.from({ length: n }, () => expected++),
    );
  };
  push(10);
  await check(7); // head at 7 of 16 slots
  push(12); // wraps around the end of the ring
  assert.equal(s.buffered, 15);
  push(40); // full: grows twice while wrapped
  assert.equal(s.buffered, 55);
  await check(50);
  push(200);
  await check(205);
  assert.equal(s.buffered, 0);
  assert.equal(consumed, 262);
  // A message pushed while the consumer waits goes straight to it.
  const waiting = s.next();
  s.push(next++);
  assert.deepEqual(await waiting, { value: expected++, done: false });
  s.end();
  assert.deepEqual(await s.next(), { value: undefined, done: true });
});

test("fail(keepBuffered) delivers what arrived first, then throws; fail() drops it", async () => {
  const err = new NearwireError(Code.Internal, "boom");
  const kept = new InboundStream<number>();
  for (let i = 0; i < 20; i++) kept.push(i);
  kept.fail(err, true);
  assert.deepEqual(
    await take(kept, 20),
    Array.from({ length: 20 }, (_, i) => i),
  );
  await assert.rejects(kept.next(), (e) => e === err);

  const dropped = new InboundStream<number>();
  for (let i = 0; i < 20; i++) dropped.push(i);
  dropped.fail(err);
  assert.equal(dropped.buffered, 0);
  await assert.rejects(dropped.next(), (e) => e === err);
});

test("return() abandons the stream: buffered messages are dropped and onAbandon runs once", async () => {
  const s = new InboundStream<number>();
  let abandoned = 0;
  s.bind(
    () => undefined,
    () => abandoned++,
  );
  for (let i = 0; i < 30; i++) s.push(i);
  assert.deepEqual(await s.return(), { value: undefined, done: true });
  await s.return();
  assert.equal(abandoned, 1);
  assert.equal(s.buffered, 0);
  s.push(99); // after the end: ignored
  assert.deepEqual(await s.next(), { value: undefined, done: true });
});

/** A stream that lends: `back` collects the frames it gives back, in order. */
function lendingStream(): { s: InboundStream<number>; back: Uint8Array[] } {
  const s = new InboundStream<number>();
  s.bind(
    () => {},
    () => {},
  );
  const back: Uint8Array[] = [];
  s.lend((f) => back.push(f));
  return { s, back };
}

test("lending: a message's frame goes back when the consumer asks for the next, in order", async () => {
  const { s, back } = lendingStream();
  const frames = Array.from({ length: 40 }, () => new Uint8Array(1));
  // 1 taken by a waiting consumer, then 39 buffered (the ring grows past 16 and 32).
  const first = s.next();
  s.push(0, frames[0]);
  assert.equal((await first).value, 0);
  for (let i = 1; i < 40; i++) s.push(i, frames[i]);
  assert.equal(back.length, 0, "nothing given back while the consumer holds message 0");
  for (let i = 1; i < 40; i++) {
    const r = await s.next();
    assert.equal(r.value, i);
    // The frame of the message before, not of this one.
    assert.equal(back.length, i);
    assert.equal(back[i - 1], frames[i - 1]);
  }
  // A message pushed without a frame (a BATCH's) gives nothing back.
  s.push(40);
  await s.next();
  assert.equal(back.length, 40);
  s.end();
  assert.equal((await s.next()).done, true);
  assert.equal(back.length, 40);
});

test("lending: frames of messages never taken are dropped, not given back", async () => {
  const { s, back } = lendingStream();
  const held = new Uint8Array(1);
  s.push(1, held);
  s.push(2, new Uint8Array(1));
  await s.next();
  s.fail(new NearwireError(Code.Canceled, "gone"));
  assert.equal(back.length, 0, "the consumer may still be using message 1");
  await assert.rejects(s.next(), (err) => (err as NearwireError).code === Code.Canceled);
  // Asking for more, the consumer is done with message 1; message 2 was never taken.
  assert.deepEqual(back, [held]);
});

test("lending: the last message's frame goes back when the consumer is done", async () => {
  for (const how of ["returned", "broke out"] as const) {
    const { s, back } = lendingStream();
    const frames = [new Uint8Array(1), new Uint8Array(1), new Uint8Array(1)];
    s.push(0, frames[0]);
    s.push(1, frames[1]);
    s.push(2, frames[2]);
    await s.next();
    await s.next(); // holds 1; 0 went back
    if (how === "broke out") await s.return();
    assert.deepEqual(back, [frames[0]], `${how}: message 1 may still be in use`);
    s.consumerDone(); // the handler returned
    assert.deepEqual(back, [frames[0], frames[1]], how);
    s.consumerDone();
    assert.equal(back.length, 2, `${how}: given back once`);
  }
});

test("nextNow: a buffered message at once (reported taken), undefined when empty, then the end", async () => {
  const s = new InboundStream<number>();
  let taken = 0;
  s.bind(
    () => taken++,
    () => {},
  );
  assert.equal(s[nextNow](), undefined, "nothing buffered: wait for next()");
  for (let i = 0; i < 3; i++) s.push(i);
  assert.deepEqual(s[nextNow](), { value: 0, done: false });
  assert.deepEqual(s[nextNow](), { value: 1, done: false });
  assert.equal(taken, 2);
  assert.deepEqual(await s.next(), { value: 2, done: false }, "next() goes on from there");
  assert.equal(s[nextNow](), undefined);
  const waiting = s.next();
  s.push(3);
  assert.deepEqual(await waiting, { value: 3, done: false }, "a waiter still gets the next push");
  s.end();
  assert.deepEqual(s[nextNow](), { value: undefined, done: true });
  assert.equal(taken, 4);
});

test("nextNow: a failed stream throws its error after what arrived first (keepBuffered)", () => {
  const s = new InboundStream<number>();
  s.push(1);
  const err = new NearwireError(Code.Internal, "peer failed");
  s.fail(err, true);
  assert.deepEqual(s[nextNow](), { value: 1, done: false });
  assert.throws(
    () => s[nextNow](),
    (e) => e === err,
  );
  assert.throws(
    () => s[nextNow](),
    (e) => e === err,
    "and again",
  );
});

test("nextNow: lending gives the frame of the message before back, as next() does", () => {
  const { s, back } = lendingStream();
  const frames = [new Uint8Array(1), new Uint8Array(1), new Uint8Array(1)];
  for (let i = 0; i < 3; i++) s.push(i, frames[i]);
  assert.equal(s[nextNow]()?.value, 0);
  assert.equal(back.length, 0);
  assert.equal(s[nextNow]()?.value, 1);
  assert.deepEqual(back, [frames[0]]);
  assert.equal(s[nextNow]()?.value, 2);
  assert.equal(s[nextNow](), undefined, "empty: the held frame goes back even so");
  assert.deepEqual(back, [frames[0], frames[1], frames[2]]);
});
