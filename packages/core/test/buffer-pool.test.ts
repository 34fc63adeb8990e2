import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BufferPool, POOL_ROUND_BYTES } from "../src/buffer-pool.js";

describe("BufferPool", () => {
  it("a buffer given back takes a later message a few bytes longer (sizes rounded up)", () => {
    const pool = new BufferPool({ maxCount: 4, maxBytes: 1024 * 1024 });
    // A protobuf chunk: 64 KiB of data behind fields whose varints grow as a transfer goes on.
    const first = pool.make(65_600);
    assert.equal(first.byteLength, 65_600);
    assert.equal(first.buffer.byteLength % POOL_ROUND_BYTES, 0);
    pool.give(first);
    const next = pool.take(65_604);
    assert.ok(next !== undefined, "the kept buffer fits the longer message");
    assert.equal(next.buffer, first.buffer);
    assert.equal(next.byteLength, 65_604);
    // Past the rounded size it does not fit, and nothing else is kept.
    pool.give(next);
    assert.equal(pool.take(first.buffer.byteLength + 1), undefined);
    assert.equal(pool.keptBytes, first.buffer.byteLength);
  });

  it("keeps the kind its allocator makes (a Buffer view of a Buffer)", () => {
    const pool = new BufferPool({
      maxCount: 4,
      maxBytes: 1024 * 1024,
      allocate: (n) => Buffer.allocUnsafeSlow(n),
    });
    const b = pool.make(50_000);
    assert.ok(Buffer.isBuffer(b));
    assert.equal(b.byteLength, 50_000);
    assert.equal(b.buffer.byteLength, 53_248);
    assert.ok(pool.owns(b));
    // Below 16 KiB a buffer is exact: many small kept messages hold no slack.
    assert.equal(pool.make(5000).buffer.byteLength, 5000);
  });

  it("ignores buffers it did not make and a buffer given twice", () => {
    const pool = new BufferPool({ maxCount: 4, maxBytes: 1024 * 1024 });
    pool.give(new Uint8Array(8192));
    assert.equal(pool.keptBytes, 0);
    const b = pool.make(8192);
    pool.give(b);
    pool.give(b);
    assert.equal(pool.keptBytes, 8192);
    // Taken out and given back, it is kept again (once).
    assert.equal(pool.take(8192)?.buffer, b.buffer);
    assert.equal(pool.keptBytes, 0);
    pool.give(b);
    pool.give(b);
    assert.equal(pool.keptBytes, 8192);
  });

  it("a burst keeps past the usual limits, then drops back once it no longer runs short", async () => {
    const KiB64 = 64 * 1024;
    const plain = new BufferPool({ maxCount: 4, maxBytes: 1024 * 1024 });
    const pool = new BufferPool({
      maxCount: 4,
      maxBytes: 1024 * 1024,
      burst: { maxBytes: 8 * 1024 * 1024, idleMs: 50 },
    });
    // Ten streams' worth of messages out at once, then all given back.
    for (const p of [plain, pool]) {
      const out = Array.from({ length: 40 }, () => p.make(KiB64));
      for (const b of out) p.give(b);
    }
    assert.equal(plain.keptBytes, 4 * KiB64, "the usual limit: 4 kept, 36 dropped");
    assert.equal(pool.keptBytes, 40 * KiB64, "the burst: all 40 kept");
    // The next burst takes them all back without making one.
    const again = Array.from({ length: 40 }, () => pool.take(KiB64));
    assert.ok(again.every((b) => b !== undefined));
    assert.equal(pool.keptBytes, 0);
    for (const b of again) pool.give(b as Uint8Array);
    // Still busy: a period in which the pool made a buffer keeps the burst's buffers.
    pool.give(pool.make(KiB64));
    await new Promise((r) => setTimeout(r, 70));
    assert.equal(pool.keptBytes, 41 * KiB64, "a period with a make: kept");
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(pool.keptBytes, 4 * KiB64, "a quiet period: back to the usual limits");
    // A buffer the trim dropped is the pool's own still: given back, it is kept again, once.
    const dropped = again.at(-1) as Uint8Array;
    pool.give(dropped);
    pool.give(dropped);
    assert.equal(pool.keptBytes, 5 * KiB64);
    // Never past the burst's own bytes.
    const many = Array.from({ length: 200 }, () => pool.make(KiB64));
    for (const b of many) pool.give(b);
    assert.equal(pool.keptBytes, 8 * 1024 * 1024);
  });
});
