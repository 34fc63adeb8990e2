import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Code, NearwireError } from "@nearwire/core";
import { type BatchSink, chunkWriter, WRITE_BATCH_BYTES } from "../src/chunk-writer.js";
import {
  giveIoBuffer,
  ioBuffersCrowded,
  SHARED_WRITES_BUFFERS,
  takeIoBuffer,
} from "../src/io-buffers.js";
import { countAllocations } from "./support/alloc-count.js";

/**
 * A sink whose `write` records a copy of each batch and ends it at `releaseAll()` (or one at a
 * time, through `gates`); `writesInFlight` as given.
 */
function fakePartial(fail?: Error, writesInFlight?: number) {
  const batches: Uint8Array[] = [];
  const gates: (() => void)[] = [];
  const partial: BatchSink = {
    write(data, done) {
      batches.push(data.slice());
      gates.push(() => done(fail ?? null));
    },
    ...(writesInFlight === undefined ? {} : { writesInFlight }),
  };
  const releaseAll = async () => {
    for (let i = 0; i < 50; i++) {
      for (const g of gates.splice(0)) g();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { partial, batches, gates, releaseAll };
}

/** `n` bytes counting up from `start` (mod 251), so any reordering or loss shows. */
function bytes(start: number, n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (start + i) % 251;
  return b;
}

describe("chunk writer", () => {
  it("writes whole batches of WRITE_BATCH_BYTES, bytes in order, the rest at drain", async () => {
    const f = fakePartial();
    const w = chunkWriter(f.partial);
    const chunk = 100_000; // does not divide the batch: chunks straddle batches
    const total = 3 * WRITE_BATCH_BYTES + 12_345;
    const pumping = (async () => {
      for (let at = 0; at < total; at += chunk) {
        const wait = w.write(bytes(at, Math.min(chunk, total - at)));
        if (wait !== undefined) await wait;
      }
      await w.drain();
    })();
    await f.releaseAll();
    await pumping;
    w.release();
    assert.deepEqual(
      f.batches.map((b) => b.byteLength),
      [WRITE_BATCH_BYTES, WRITE_BATCH_BYTES, WRITE_BATCH_BYTES, 12_345],
    );
    const all = Buffer.concat(f.batches);
    assert.deepEqual(new Uint8Array(all), bytes(0, total));
  });

  it("makes the handler wait only when a full batch is behind a write in flight", async () => {
    const f = fakePartial();
    const w = chunkWriter(f.partial);
    const half = WRITE_BATCH_BYTES / 2;
    assert.equal(w.write(bytes(0, half)), undefined);
    assert.equal(w.write(bytes(half, half)), undefined, "first full batch starts writing");
    assert.equal(w.write(bytes(2 * half, half)), undefined);
    const wait = w.write(bytes(3 * half, half));
    assert.ok(wait !== undefined, "second full batch waits for the first write");
    await f.releaseAll();
    await wait;
    const drained = w.drain();
    await f.releaseAll();
    await drained;
    assert.equal(f.batches.length, 2);
  });

  it("two writes in flight: a third full batch waits; they may end in any order; drain waits for all", async () => {
    const f = fakePartial(undefined, 2);
    const w = chunkWriter(f.partial);
    const n = WRITE_BATCH_BYTES;
    assert.equal(w.write(bytes(0, n)), undefined, "first batch: written");
    assert.equal(w.write(bytes(n, n)), undefined, "second batch: written beside the first");
    assert.equal(f.batches.length, 2);
    const third = w.write(bytes(2 * n, n));
    assert.ok(third !== undefined, "third full batch waits: two are in flight");
    assert.equal(f.batches.length, 2);
    // The second ends first: the third goes out.
    (f.gates.splice(1, 1)[0] as () => void)();
    await third;
    assert.equal(f.batches.length, 3);
    assert.equal(w.write(bytes(3 * n, 100)), undefined);
    let drained = false;
    const draining = w.drain().then(() => {
      drained = true;
    });
    const tick = () => new Promise((r) => setImmediate(r));
    await tick();
    assert.equal(f.gates.length, 2, "the first and third in flight");
    (f.gates.shift() as () => void)();
    await tick();
    assert.equal(drained, false, "drain waits for every write in flight, not the first to end");
    (f.gates.shift() as () => void)();
    await tick();
    assert.equal(f.batches.length, 4, "then the tail goes out");
    assert.equal(drained, false);
    await f.releaseAll();
    await draining;
    w.release();
    assert.deepEqual(
      f.batches.map((b) => b.byteLength),
      [n, n, n, 100],
    );
    assert.deepEqual(new Uint8Array(Buffer.concat(f.batches)), bytes(0, 3 * n + 100));

    // Nothing left to write, two writes in flight: drain waits for both.
    const g = fakePartial(undefined, 2);
    const v = chunkWriter(g.partial);
    v.write(bytes(0, n));
    v.write(bytes(n, n));
    let done = false;
    const drainingBoth = v.drain().then(() => {
      done = true;
    });
    (g.gates.pop() as () => void)(); // the second ends first
    await tick();
    assert.equal(done, false, "one write is still in flight");
    await g.releaseAll();
    await drainingBoth;
    v.release();
  });

  it("many receivers at once: a writer keeps one write in flight while the process is crowded", async () => {
    const n = WRITE_BATCH_BYTES;
    // Other transfers' buffers: one short of crowded, then this writer's own make it crowded.
    const others = Array.from({ length: SHARED_WRITES_BUFFERS - 2 }, () => takeIoBuffer());
    try {
      const f = fakePartial(undefined, 2);
      const w = chunkWriter(f.partial);
      assert.equal(ioBuffersCrowded(), false);
      assert.equal(w.write(bytes(0, n)), undefined, "first batch: written");
      // The written batch and the one filling: 16 out, crowded.
      const second = w.write(bytes(n, n));
      assert.equal(ioBuffersCrowded(), true);
      assert.ok(second !== undefined, "the second full batch waits for the first write");
      assert.equal(f.batches.length, 1, "one write in flight, not two");
      (f.gates.shift() as () => void)();
      await second;
      assert.equal(f.batches.length, 2, "it goes out once the first ended");
      // Less crowded again (others ended): two in flight, as writesInFlight says.
      for (const b of others.splice(0, 4)) giveIoBuffer(b);
      assert.equal(ioBuffersCrowded(), false);
      assert.equal(w.write(bytes(2 * n, n)), undefined, "a second write beside the one in flight");
      assert.equal(f.batches.length, 3);
      await f.releaseAll();
      await w.drain();
      w.release();
      assert.deepEqual(new Uint8Array(Buffer.concat(f.batches)), bytes(0, 3 * n));
    } finally {
      for (const b of others) giveIoBuffer(b);
    }
  });

  it("the first write error rejects the next write and drain; nothing more is written", async () => {
    const f = fakePartial(new NearwireError(Code.ResourceExhausted, "disk full"));
    const w = chunkWriter(f.partial);
    assert.equal(w.write(bytes(0, WRITE_BATCH_BYTES)), undefined);
    await f.releaseAll();
    await assert.rejects(
      Promise.resolve(w.write(bytes(0, 10))),
      (err: NearwireError) => err.code === Code.ResourceExhausted,
    );
    await assert.rejects(w.drain(), (err: NearwireError) => err.code === Code.ResourceExhausted);
    assert.equal(f.batches.length, 1);
  });

  it("a steady load of more writers than the idle pool takes its batches from the pool", async () => {
    // Twelve transfers of 2 MiB at once need 24 batches, more than the 8 kept when idle: the
    // second round must allocate none (the first made them), a failed write's batch included.
    const round = async () => {
      const runs = Array.from({ length: 12 }, async (_, i) => {
        // A sink that keeps nothing (the recording fake's copies would count) and takes a turn
        // of the event loop per write, so the twelve overlap; the first one's writes fail.
        const w = chunkWriter({
          write: (_batch, done) => {
            setImmediate(() => done(i === 0 ? new Error("disk gone") : null));
          },
        });
        try {
          for (let at = 0; at < 2 * WRITE_BATCH_BYTES; at += 65536) {
            const wait = w.write(bytes(at, 65536));
            if (wait !== undefined) await wait;
          }
          await w.drain();
        } catch {
          // the failing sink's
        } finally {
          w.release();
        }
      });
      await Promise.all(runs);
    };
    await round();
    const second = await countAllocations(WRITE_BATCH_BYTES, round);
    assert.equal(second.bigBuffers, 0);
  });
});
