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
  });
});
