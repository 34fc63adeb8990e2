import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Code, NearwireError } from "@nearwire/core";
import fc from "fast-check";
import { DIRECT_READ_MIN_BYTES, encodeFrame, FrameDecoder, PEEK_READ_BYTES } from "../src/index.js";

const SEED = 2812;
const READ_BYTES = 64 * 1024;

type Received = { type: number; payload: Uint8Array; transient: boolean };

/**
 * Reads `stream` the way a socket reader with `onread` does: into the decoder's payload target
 * when it offers one, else into one reused buffer (the peek part of it after a large frame),
 * pushed as transient and overwritten right after the push. `sizes` are the kernel's answers:
 * how many of the bytes asked for each read returns (cycled; 0 means all).
 */
function readThrough(stream: Uint8Array, sizes: readonly number[]) {
  const got: Received[] = [];
  const decoder = new FrameDecoder({
    maxPayloadBytes: 1 << 20,
    onFrame: (type, payload, transient) =>
      got.push({ type, payload: new Uint8Array(payload), transient }),
  });
  const shared = new Uint8Array(READ_BYTES);
  let at = 0;
  let inPlace = 0;
  let reads = 0;
  while (at < stream.length) {
    const target = decoder.payloadTarget();
    const dest = target ?? (decoder.smallReadAhead ? shared.subarray(0, PEEK_READ_BYTES) : shared);
    const want = sizes.length === 0 ? 0 : (sizes[reads % sizes.length] as number);
    reads++;
    const n = Math.min(dest.length, stream.length - at, want === 0 ? dest.length : want);
    dest.set(stream.subarray(at, at + n));
    at += n;
    if (target !== undefined) {
      decoder.filled(n);
      inPlace += n;
    } else {
      decoder.push(dest.subarray(0, n), true);
      // The next read reuses the buffer: a view kept past the push would now read 0xEE.
      shared.fill(0xee);
    }
  }
  return { got, inPlace, decoder };
}

function framesOf(payloadSizes: readonly number[]): {
  stream: Uint8Array;
  sent: { type: number; payload: Uint8Array }[];
} {
  const sent = payloadSizes.map((size, i) => {
    const payload = new Uint8Array(size);
    for (let j = 0; j < size; j++) payload[j] = (i * 31 + j * 7) & 0xff;
    return { type: 0x10 + (i % 0x60), payload };
  });
  return { stream: Buffer.concat(sent.map((f) => encodeFrame(f.type, f.payload))), sent };
}

describe("FrameDecoder: reading in place (payloadTarget / filled) and transient chunks", () => {
  it("64 KiB frames: most payload bytes are read into the frame's own buffer", () => {
    const { stream, sent } = framesOf(Array.from({ length: 40 }, () => 65_560));
    const { got, inPlace } = readThrough(stream, []);
    assert.deepEqual(
      got.map((f) => [f.type, Buffer.from(f.payload).toString("base64")]),
      sent.map((f) => [f.type, Buffer.from(f.payload).toString("base64")]),
    );
    // After the first frame a 16 KiB peek reaches each frame's head; the rest lands in place.
    assert.ok(inPlace > 0.7 * stream.length, `only ${inPlace} of ${stream.length} B in place`);
    assert.ok(
      got.every((f) => !f.transient),
      "an assembled frame is not transient",
    );
  });

  it("small frames inside one read are transient views; large ones are not", () => {
    const { stream, sent } = framesOf([10, 20, 100_000, 30]);
    const { got } = readThrough(stream, []);
    assert.equal(got.length, sent.length);
    assert.deepEqual(
      got.map((f) => f.transient),
      [true, true, false, true],
    );
    for (const [i, f] of got.entries()) assert.deepEqual(f.payload, sent[i]?.payload);
  });

  it("property: any frame mix, any read sizes, decodes to itself (seeded)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            { weight: 3, arbitrary: fc.integer({ min: 0, max: 200 }) },
            { weight: 2, arbitrary: fc.integer({ min: 10_000, max: 300_000 }) },
          ),
          { maxLength: 12 },
        ),
        fc.array(fc.integer({ min: 0, max: 70_000 }), { maxLength: 8 }),
        (sizes, reads) => {
          const { stream, sent } = framesOf(sizes);
          const { got, decoder } = readThrough(stream, reads);
          assert.equal(got.length, sent.length);
          for (const [i, f] of got.entries()) {
            assert.equal(f.type, sent[i]?.type);
            assert.deepEqual(f.payload, sent[i]?.payload);
          }
          assert.equal(decoder.inFrame, false);
        },
      ),
      { seed: SEED, numRuns: 150 },
    );
  });

  it("a pause inside a transient chunk keeps a copy of the rest", () => {
    const chunk = Buffer.concat([
      encodeFrame(0x10, Buffer.from("one")),
      encodeFrame(0x11, Buffer.from("two")),
    ]);
    const got: string[] = [];
    const decoder = new FrameDecoder({
      onFrame: (_type, payload) => {
        got.push(Buffer.from(payload).toString());
        decoder.pause();
      },
    });
    const buffer = new Uint8Array(chunk);
    decoder.push(buffer, true);
    buffer.fill(0xee);
    const next = new Uint8Array(encodeFrame(0x12, Buffer.from("three")));
    decoder.push(next, true);
    next.fill(0xee);
    assert.deepEqual(got, ["one"]);
    const three = encodeFrame(0x12, Buffer.from("three")).length;
    const one = encodeFrame(0x10, Buffer.from("one")).length;
    assert.equal(decoder.bufferedBytes, chunk.length - one + three);
    decoder.resume();
    decoder.resume();
    assert.deepEqual(got, ["one", "two", "three"]);
  });

  it("a large announced frame with little of it sent gets no target and little memory", () => {
    const decoder = new FrameDecoder({ onFrame: () => {} });
    // 4 MiB announced, 1 byte of payload sent.
    decoder.push(new Uint8Array([0x00, 0x40, 0x00, 0x00, 0x10, 0xaa]));
    assert.equal(decoder.payloadTarget(), undefined, "no room before 4 KiB are in");
    decoder.push(new Uint8Array(8 * 1024 - 1));
    const target = decoder.payloadTarget();
    assert.ok(target !== undefined);
    // At most 4× what is in: 32 KiB for 8 KiB received.
    assert.ok(target.length <= 3 * 8 * 1024, `target of ${target.length} B`);
    assert.ok(target.length >= DIRECT_READ_MIN_BYTES);
  });

  it("filled past the target is INTERNAL, and the decoder state is kept", () => {
    const decoder = new FrameDecoder({ onFrame: () => {} });
    const frame = encodeFrame(0x10, new Uint8Array(100_000));
    decoder.push(frame.subarray(0, 30_000));
    const target = decoder.payloadTarget();
    assert.ok(target !== undefined);
    assert.throws(
      () => decoder.filled(target.length + 1),
      (err) => err instanceof NearwireError && err.code === Code.Internal,
    );
    assert.equal(decoder.bufferedBytes, 30_000);
  });

  it("no target while paused or between frames", () => {
    const decoder = new FrameDecoder({ onFrame: () => {} });
    assert.equal(decoder.payloadTarget(), undefined);
    decoder.push(encodeFrame(0x10, new Uint8Array(100_000)).subarray(0, 40_000));
    decoder.pause();
    assert.equal(decoder.payloadTarget(), undefined);
    decoder.resume();
    assert.ok(decoder.payloadTarget() !== undefined);
  });
});

describe("FrameDecoder.reclaim: frame buffers given back are reused", () => {
  function decoderOf(got: Uint8Array[]) {
    return new FrameDecoder({ onFrame: (_t, payload) => got.push(payload) });
  }
  /** Pushes `frame` in two pieces, so that it spans chunks (its own buffer). */
  function pushSplit(decoder: FrameDecoder, frame: Uint8Array) {
    decoder.push(frame.subarray(0, 1000));
    decoder.push(frame.subarray(1000));
  }

  it("a later frame of at most that size lands in the buffer given back, intact", () => {
    const got: Uint8Array[] = [];
    const decoder = decoderOf(got);
    pushSplit(decoder, encodeFrame(0x10, new Uint8Array(70_000).fill(1)));
    const first = got[0] as Uint8Array;
    decoder.reclaim(first);
    pushSplit(decoder, encodeFrame(0x11, new Uint8Array(50_000).fill(2)));
    const second = got[1] as Uint8Array;
    assert.equal(second.buffer, first.buffer);
    assert.equal(second.length, 50_000);
    assert.ok(second.every((b) => b === 2));
    // Not given back: the next frame gets a buffer of its own.
    pushSplit(decoder, encodeFrame(0x12, new Uint8Array(50_000).fill(3)));
    assert.notEqual((got[2] as Uint8Array).buffer, first.buffer);
    assert.ok(
      second.every((b) => b === 2),
      "the lent frame was not overwritten",
    );
  });

  it("ignores views of pushed chunks, buffers given back twice, and frames too large for them", () => {
    const got: Uint8Array[] = [];
    const decoder = decoderOf(got);
    const chunk = encodeFrame(0x10, new Uint8Array(40_000).fill(7));
    decoder.push(chunk);
    decoder.reclaim(got[0] as Uint8Array); // a view of `chunk`
    pushSplit(decoder, encodeFrame(0x11, new Uint8Array(30_000).fill(8)));
    assert.notEqual((got[1] as Uint8Array).buffer, chunk.buffer);
    assert.ok(
      chunk.subarray(5, 40_005).every((b) => b === 7),
      "the chunk was not reused",
    );

    const own = got[1] as Uint8Array;
    decoder.reclaim(own);
    decoder.reclaim(own);
    pushSplit(decoder, encodeFrame(0x12, new Uint8Array(60_000).fill(9))); // larger: not in it
    assert.notEqual((got[2] as Uint8Array).buffer, own.buffer);
    pushSplit(decoder, encodeFrame(0x13, new Uint8Array(20_000).fill(10)));
    pushSplit(decoder, encodeFrame(0x14, new Uint8Array(20_000).fill(11)));
    assert.equal((got[3] as Uint8Array).buffer, own.buffer);
    assert.notEqual((got[4] as Uint8Array).buffer, own.buffer, "given back once, used once");
  });
});
