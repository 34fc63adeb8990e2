import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BufferBudget, MessageReader } from "../src/grpc/message-reader.js";

/** A length-prefixed message of `n` bytes (byte i = i mod 251). */
function prefixed(n: number): Uint8Array {
  const out = new Uint8Array(5 + n);
  new DataView(out.buffer).setUint32(1, n);
  for (let i = 0; i < n; i++) out[5 + i] = i % 251;
  return out;
}

describe("MessageReader across DATA payloads", () => {
  it("a message just over 64 KiB gets one buffer of its size; a 4 MiB one still grows as bytes come", () => {
    for (const [size, afterFirstPiece] of [
      [65_542, 65_542], // a 64 KiB chunk behind a few bytes of fields: the whole at once
      [4 * 1024 * 1024, 64 * 1024], // an announced 4 MiB costs 64 KiB until more arrives
    ] as const) {
      const budget = new BufferBudget(64 * 1024 * 1024);
      const reader = new MessageReader(8 * 1024 * 1024, "request", budget);
      const got: Uint8Array[] = [];
      const sink = { onMessage: (_c: boolean, bytes: Uint8Array) => got.push(bytes) };
      const wire = prefixed(size);
      reader.push(wire.subarray(0, 5 + 16_384), sink);
      assert.equal(budget.usedBytes, afterFirstPiece, `${size} B: held after 16 KiB`);
      for (let at = 5 + 16_384; at < wire.byteLength; at += 16_384)
        reader.push(wire.subarray(at, Math.min(at + 16_384, wire.byteLength)), sink);
      assert.equal(got.length, 1);
      assert.equal(got[0]?.byteLength, size);
      assert.ok(Buffer.from(got[0] as Uint8Array).equals(wire.subarray(5)), "bytes intact");
      assert.equal(budget.usedBytes, 0, "the finished message left the budget");
      assert.equal(reader.partial, false);
    }
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
});
