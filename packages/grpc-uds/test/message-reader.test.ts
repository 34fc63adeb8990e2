import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Code, NearwireError } from "@nearwire/core";
import { BufferPool } from "@nearwire/core/transport-kit";
import type { MessageSink } from "../src/grpc/message-reader.js";
import { BufferBudget, MessageReader } from "../src/grpc/message-reader.js";
import { connectionPool } from "../src/message-pool.js";

/** A length-prefixed message of `n` bytes (byte i = i mod 251). */
function prefixed(n: number): Uint8Array {
  const out = new Uint8Array(5 + n);
  new DataView(out.buffer).setUint32(1, n);
  for (let i = 0; i < n; i++) out[5 + i] = i % 251;
  return out;
}

describe("MessageReader across DATA payloads", () => {
  /** Feeds `wire` in 16 KiB payloads; returns what the budget held after the first one. */
  function feed(reader: MessageReader, budget: BufferBudget, wire: Uint8Array, sink: MessageSink) {
    reader.push(wire.subarray(0, 5 + 16_384), sink);
    const held = budget.usedBytes;
    for (let at = 5 + 16_384; at < wire.byteLength; at += 16_384)
      reader.push(wire.subarray(at, Math.min(at + 16_384, wire.byteLength)), sink);
    return held;
  }

  it("a message that spans payloads gets one buffer of its size while the budget has room", () => {
    for (const size of [65_542, 1024 * 1024 + 7, 4 * 1024 * 1024]) {
      const budget = new BufferBudget(64 * 1024 * 1024);
      const reader = new MessageReader(8 * 1024 * 1024, "request", budget);
      const got: Uint8Array[] = [];
      const wire = prefixed(size);
      const held = feed(reader, budget, wire, {
        onMessage: (_c, bytes) => got.push(bytes),
      });
      assert.equal(held, size, `${size} B: the whole size held after 16 KiB`);
      assert.equal(got.length, 1);
      assert.equal(got[0]?.byteLength, size);
      assert.equal(got[0]?.buffer.byteLength, size, `${size} B: delivered in its one buffer`);
      assert.ok(Buffer.from(got[0] as Uint8Array).equals(wire.subarray(5)), "bytes intact");
      assert.equal(budget.usedBytes, 0, "the finished message left the budget");
      assert.equal(reader.partial, false);
    }
  });

  it("with a lending pool, a 1 MiB message is one buffer the pool made, given to the sink", () => {
    const made: number[] = [];
    const pool = new BufferPool({
      maxCount: 4,
      maxBytes: 8 * 1024 * 1024,
      allocate: (n) => {
        made.push(n);
        return new Uint8Array(n);
      },
    });
    const budget = new BufferBudget(32 * 1024 * 1024);
    const reader = new MessageReader(4 * 1024 * 1024, "request", budget);
    reader.lendFrom(pool);
    const size = 1024 * 1024 + 11;
    const got: { bytes: Uint8Array; pooled: boolean }[] = [];
    const sink: MessageSink = { onMessage: (_c, bytes, pooled) => got.push({ bytes, pooled }) };
    for (let round = 0; round < 3; round++) {
      const wire = prefixed(size);
      assert.equal(feed(reader, budget, wire, sink), size, "the whole size held after 16 KiB");
      const m = got[round] as { bytes: Uint8Array; pooled: boolean };
      assert.ok(m.pooled, "the sink is told the buffer is the pool's");
      assert.ok(pool.owns(m.bytes));
      assert.ok(Buffer.from(m.bytes).equals(wire.subarray(5)), "bytes intact");
      pool.give(m.bytes);
    }
    assert.equal(made.length, 1, `one buffer made for three messages (made ${made.join(", ")} B)`);
    assert.equal(budget.usedBytes, 0);
  });

  it("past half the budget, an announced 4 MiB message holds what arrived, not what was announced", () => {
    const budget = new BufferBudget(64 * 1024 * 1024);
    // Other streams' unfinished messages already hold 31 MiB of the connection's 64.
    budget.usedBytes = 31 * 1024 * 1024;
    const reader = new MessageReader(8 * 1024 * 1024, "request", budget);
    const size = 4 * 1024 * 1024;
    const wire = prefixed(size);
    const got: Uint8Array[] = [];
    const held = feed(reader, budget, wire, { onMessage: (_c, bytes) => got.push(bytes) });
    assert.equal(held - 31 * 1024 * 1024, 64 * 1024, "64 KiB held after 16 KiB of 4 MiB");
    assert.equal(got.length, 1);
    assert.ok(Buffer.from(got[0] as Uint8Array).equals(wire.subarray(5)), "bytes intact");
    assert.equal(budget.usedBytes, 31 * 1024 * 1024, "the finished message left the budget");
  });

  it("a message past the whole budget fails RESOURCE_EXHAUSTED and leaves the budget as it was", () => {
    const budget = new BufferBudget(2 * 1024 * 1024);
    const reader = new MessageReader(4 * 1024 * 1024, "request", budget);
    const wire = prefixed(3 * 1024 * 1024);
    assert.throws(
      () => feed(reader, budget, wire, { onMessage: () => assert.fail("no message") }),
      (e: unknown) => e instanceof NearwireError && e.code === Code.ResourceExhausted,
    );
    reader.release();
    assert.equal(budget.usedBytes, 0);
  });

  it("messages whole in a payload outlive it: the payload's buffer is reused after push", () => {
    // A socket read into a reused buffer: every payload is overwritten once push returns.
    const reader = new MessageReader(1024 * 1024, "request", new BufferBudget(1 << 26));
    const got: Uint8Array[] = [];
    const sink = { onMessage: (_c: boolean, bytes: Uint8Array) => got.push(bytes) };
    const sizes = [0, 1, 100, 3000, 9000, 40_000];
    const wire = Buffer.concat(sizes.map((n) => prefixed(n)));
    const reused = new Uint8Array(64 * 1024);
    for (let at = 0; at < wire.byteLength; at += 7000) {
      const piece = wire.subarray(at, Math.min(at + 7000, wire.byteLength));
      reused.set(piece);
      reader.push(reused.subarray(0, piece.byteLength), sink);
      reused.fill(0xee);
    }
    assert.deepEqual(
      got.map((m) => m.byteLength),
      sizes,
    );
    for (const [i, m] of got.entries())
      assert.ok(Buffer.from(m).equals(prefixed(sizes[i] as number).subarray(5)), `message ${i}`);
  });

  it("the connection's message pool keeps ten streams' messages given back at once (a burst)", () => {
    // Ten transfers' 512 KiB windows of 64 KiB messages, and as many queued: 160 buffers, 10 MiB.
    const pool = connectionPool();
    const out = Array.from({ length: 160 }, () => pool.make(64 * 1024));
    for (const b of out) pool.give(b);
    assert.equal(pool.keptBytes, 160 * 64 * 1024, "all kept: the next burst makes none");
    for (let i = 0; i < 160; i++) assert.ok(pool.take(64 * 1024), `buffer ${i} from the pool`);
    assert.equal(pool.take(64 * 1024), undefined);
    // Past the burst's 16 MiB nothing more is kept.
    const many = Array.from({ length: 300 }, () => pool.make(64 * 1024));
    for (const b of many) pool.give(b);
    assert.equal(pool.keptBytes, 16 * 1024 * 1024);
  });
});
