import assert from "node:assert/strict";
import { createHook } from "node:async_hooks";
import { test } from "node:test";
import { Code } from "../src/code.js";
import { NearwireError } from "../src/nearwire-error.js";
import { forEachMessage } from "../src/rpc/for-each-message.js";
import { InboundStream } from "../src/rpc/inbound-stream.js";

/** A stream whose takes are counted (the credit a real call returns per message). */
function counted(): { s: InboundStream<number>; consumed: () => number; abandoned: () => number } {
  const s = new InboundStream<number>();
  let consumed = 0;
  let abandoned = 0;
  s.bind(
    () => consumed++,
    () => abandoned++,
  );
  return { s, consumed: () => consumed, abandoned: () => abandoned };
}

test("every message in order, buffered ones first, then each as it is pushed; the end resolves false", async () => {
  const { s, consumed, abandoned } = counted();
  for (let i = 0; i < 5; i++) s.push(i);
  const seen: number[] = [];
  const done = forEachMessage(s, (v) => {
    seen.push(v);
  });
  assert.deepEqual(seen, [0, 1, 2, 3, 4], "the buffered ones are taken at once");
  for (let i = 5; i < 50; i++) {
    s.push(i);
    assert.equal(seen.at(-1), i, "a message pushed to a waiting loop is handled within push");
  }
  s.end();
  assert.equal(await done, false);
  assert.deepEqual(
    seen,
    Array.from({ length: 50 }, (_, i) => i),
  );
  assert.equal(consumed(), 50, "each message taken returns its credit");
  assert.equal(abandoned(), 0, "the stream is not closed");
});

test("a loop that keeps up makes no promise per message", async () => {
  const { s } = counted();
  let seen = 0;
  const done = forEachMessage(s, () => {
    seen++;
  });
  let promises = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === "PROMISE") promises++;
    },
  }).enable();
  for (let i = 0; i < 1000; i++) s.push(i);
  hook.disable();
  s.end();
  assert.equal(await done, false);
  assert.equal(seen, 1000);
  assert.equal(promises, 0);
});

test("true stops the loop with the rest still buffered; the stream stays open", async () => {
  const { s, abandoned } = counted();
  for (let i = 0; i < 10; i++) s.push(i);
  const seen: number[] = [];
  assert.equal(
    await forEachMessage(s, (v) => {
      seen.push(v);
      return v === 3;
    }),
    true,
  );
  assert.deepEqual(seen, [0, 1, 2, 3]);
  assert.equal(s.buffered, 6);
  assert.equal(abandoned(), 0);
  assert.deepEqual(await s.next(), { value: 4, done: false });
});

test("a promise from each makes the loop wait; what arrives meanwhile comes after, in order", async () => {
  const { s } = counted();
  const seen: number[] = [];
  let release: (() => void) | undefined;
  const done = forEachMessage(s, (v) => {
    seen.push(v);
    if (v === 2) return new Promise<void>((r) => (release = r));
    if (v === 7) return Promise.resolve(true);
    return undefined;
  });
  for (let i = 0; i < 6; i++) s.push(i);
  assert.deepEqual(seen, [0, 1, 2], "waiting on the promise");
  assert.equal(s.buffered, 3);
  (release as () => void)();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen, [0, 1, 2, 3, 4, 5]);
  s.push(6);
  s.push(7);
  s.push(8);
  assert.equal(await done, true, "a promise resolving to true stops it");
  assert.deepEqual(seen, [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(s.buffered, 1);
});

test("the stream's error rejects the loop after the messages that came before it", async () => {
  const { s } = counted();
  const err = new NearwireError(Code.DataLoss, "peer failed");
  const seen: number[] = [];
  const done = forEachMessage(s, (v) => {
    seen.push(v);
  });
  s.push(0);
  s.push(1);
  s.fail(err, true);
  await assert.rejects(done, (e) => e === err);
  assert.deepEqual(seen, [0, 1]);
});

test("each throwing from within push rejects the loop, and push itself does not throw", async () => {
  const { s, consumed } = counted();
  const boom = new Error("handler bug");
  const done = forEachMessage(s, (v) => {
    if (v === 1) throw boom;
  });
  s.push(0);
  assert.doesNotThrow(() => s.push(1));
  s.push(2); // nobody takes it any more
  await assert.rejects(done, (e) => e === boom);
  assert.equal(consumed(), 2);
  assert.equal(s.buffered, 1);
});

test("a rejected promise from each rejects the loop", async () => {
  const { s } = counted();
  const boom = new Error("disk");
  const done = forEachMessage(s, () => Promise.reject(boom));
  s.push(0);
  await assert.rejects(done, (e) => e === boom);
});

test("return() while the loop waits ends it (false)", async () => {
  const { s, abandoned } = counted();
  const done = forEachMessage(s, () => undefined);
  s.push(0);
  await s.return();
  assert.equal(await done, false);
  assert.equal(abandoned(), 1);
});

test("an iterator without side doors is read with next()", async () => {
  async function* gen() {
    for (let i = 0; i < 5; i++) yield i;
    throw new Error("gen failed");
  }
  const seen: number[] = [];
  await assert.rejects(
    forEachMessage(gen(), (v) => {
      seen.push(v);
    }),
    /gen failed/,
  );
  assert.deepEqual(seen, [0, 1, 2, 3, 4]);
  const stopped: number[] = [];
  assert.equal(
    await forEachMessage(gen(), (v) => {
      stopped.push(v);
      return v === 1;
    }),
    true,
  );
  assert.deepEqual(stopped, [0, 1]);
});
