import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Code, NearwireError } from "@nearwire/core";
import { type BatchSink, chunkWriter, WRITE_BATCH_BYTES } from "../src/chunk-writer.js";
import { countAllocations } from "./support/alloc-count.js";

/** A sink whose `write` records a copy of each batch and ends it at `releaseAll()`. */
function fakePartial(fail?: Error) {
  const batches: Uint8Array[] = [];
  const gates: (() => void)[] = [];
  const partial: BatchSink = {
    write(data, done) {
      batches.push(data.slice());
      gates.push(() => done(fail ?? null));
    },
  };
  const releaseAll = async () => {
    for (let i = 0; i < 50; i++) {
      for (const g of gates.splice(0)) g();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { partial, batches, releaseAll };
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
