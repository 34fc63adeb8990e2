import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { field, hex, inputBytes, readVectors, type Vector } from "@nearwire/conformance";
import { Code, NearwireError } from "@nearwire/core";
import {
  DEFAULT_MAX_FRAME_BYTES,
  encodeFrame,
  encodeFrameInto,
  FRAME_OVERHEAD_BYTES,
  FrameDecoder,
} from "../src/index.js";

type Frame = { type: number; payload: Uint8Array };

function collector(maxPayloadBytes?: number): { decoder: FrameDecoder; frames: Frame[] } {
  const frames: Frame[] = [];
  const options = {
    onFrame: (type: number, payload: Uint8Array) =>
      frames.push({ type, payload: new Uint8Array(payload) }),
  };
  const decoder = new FrameDecoder(
    maxPayloadBytes === undefined ? options : { ...options, maxPayloadBytes },
  );
  return { decoder, frames };
}

function concat(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

function expectError(fn: () => void, code: Code, reason: string | undefined): NearwireError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof NearwireError, `expected NearwireError, got ${String(caught)}`);
  assert.equal(caught.code, code);
  assert.equal(caught.reason, reason);
  return caught;
}

const vectors = readVectors();
const frameVectors = [...vectors.values()].filter((v) => v.name.startsWith("frame-"));
const expected: Frame[] = frameVectors.map((v) => ({
  type: Number(field(v, "type")),
  payload: hex(v, "payload"),
}));
const stream = concat(frameVectors.map((v) => hex(v, "frame")));

describe("frame vectors from PROTOCOL.md §1", () => {
  it("has the three frame vectors", () => {
    assert.deepEqual(
      frameVectors.map((v) => v.name),
      ["frame-empty", "frame-abc", "frame-message"],
    );
  });

  it("encodeFrame produces each vector", () => {
    for (const v of frameVectors) {
      assert.deepEqual(
        new Uint8Array(encodeFrame(Number(field(v, "type")), hex(v, "payload"))),
        hex(v, "frame"),
        v.name,
      );
    }
  });

  it("decodes the coalesced stream in one chunk", () => {
    const { decoder, frames } = collector();
    decoder.push(stream);
    assert.deepEqual(frames, expected);
    assert.equal(decoder.bufferedBytes, 0);
  });

  it("decodes the stream split at every byte position", () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const { decoder, frames } = collector();
      decoder.push(stream.subarray(0, cut));
      decoder.push(stream.subarray(cut));
      assert.deepEqual(frames, expected, `cut at ${cut}`);
    }
  });

  it("decodes the stream split at every pair of positions and byte by byte", () => {
    for (let a = 0; a <= stream.length; a++) {
      for (let b = a; b <= stream.length; b++) {
        const { decoder, frames } = collector();
        decoder.push(stream.subarray(0, a));
        decoder.push(stream.subarray(a, b));
        decoder.push(stream.subarray(b));
        assert.deepEqual(frames, expected, `cuts at ${a}, ${b}`);
      }
    }
    const { decoder, frames } = collector();
    for (let i = 0; i < stream.length; i++) decoder.push(stream.subarray(i, i + 1));
    assert.deepEqual(frames, expected);
  });

  function rejection(v: Vector): void {
    const input = inputBytes(v);
    const max = Number(field(v, "max-payload-bytes"));
    const after = Number(field(v, "reject-after-bytes"));
    const code = Number(field(v, "code")) as Code;
    const reason = field(v, "reason");
    // Byte by byte: it must throw no later than `after` bytes.
    const { decoder, frames } = collector(max);
    let fed = 0;
    expectError(
      () => {
        for (; fed < input.length; fed++) decoder.push(input.subarray(fed, fed + 1));
      },
      code,
      reason,
    );
    assert.ok(fed + 1 <= after, `${v.name}: rejected after ${fed + 1} bytes, limit ${after}`);
    assert.equal(frames.length, 0);
    // Dead afterwards: every later push throws the same error.
    expectError(() => decoder.push(new Uint8Array(1)), code, reason);
    // In one chunk too.
    expectError(() => collector(max).decoder.push(input), code, reason);
  }

  // reject-http-request is a server's answer before the preface (§4.2): the uds tests read it.
  for (const name of ["reject-frame-too-large", "reject-crc-mismatch"]) {
    it(`rejects ${name}`, () => rejection(vectors.get(name) as Vector));
  }
});

describe("FrameDecoder", () => {
  it("rejects an over-limit length after only 4 bytes, never buffering the payload", () => {
    const { decoder } = collector(1000);
    const header = new Uint8Array([0, 0, 0x03, 0xe9]); // 1001
    decoder.push(header.subarray(0, 3));
    assert.equal(decoder.bufferedBytes, 3);
    const err = expectError(
      () => decoder.push(header.subarray(3)),
      Code.ResourceExhausted,
      "frame-too-large",
    );
    assert.equal(decoder.error, err);
    // A length equal to the limit is fine.
    const ok = collector(1000);
    ok.decoder.push(encodeFrame(0x80, new Uint8Array(1000)));
    assert.equal(ok.frames.length, 1);
  });

  it("rejects the largest u32 length with the default limit", () => {
    const { decoder } = collector();
    assert.equal(decoder.maxPayloadBytes, DEFAULT_MAX_FRAME_BYTES);
    expectError(
      () => decoder.push(new Uint8Array([0xff, 0xff, 0xff, 0xff])),
      Code.ResourceExhausted,
      "frame-too-large",
    );
  });

  it("a flipped bit in the type, the payload or the CRC is DATA_LOSS", () => {
    const frame = encodeFrame(0x80, new TextEncoder().encode("hello world"));
    const positions = [4, 5, 10, 15, frame.length - 4, frame.length - 1];
    for (const pos of positions) {
      for (const bit of [0, 7]) {
        const bad = frame.slice();
        bad[pos] = (bad[pos] as number) ^ (1 << bit);
        const { decoder, frames } = collector();
        expectError(() => decoder.push(bad), Code.DataLoss, "crc-mismatch");
        assert.equal(frames.length, 0);
        // Split before the bad byte too (slow path).
        const split = collector();
        split.decoder.push(bad.subarray(0, pos));
        expectError(() => split.decoder.push(bad.subarray(pos)), Code.DataLoss, "crc-mismatch");
      }
    }
  });

  it("frames before a corrupt one are delivered, none after it", () => {
    const good = encodeFrame(0x81, new Uint8Array([1]));
    const bad = encodeFrame(0x82, new Uint8Array([2]));
    bad[5] = 3;
    const { decoder, frames } = collector();
    expectError(() => decoder.push(concat([good, bad, good])), Code.DataLoss, "crc-mismatch");
    assert.equal(frames.length, 1);
    assert.equal(frames[0]?.type, 0x81);
  });

  it("empty payload, alone and between others", () => {
    const { decoder, frames } = collector();
    const empty = encodeFrame(0x90, new Uint8Array(0));
    assert.equal(empty.length, FRAME_OVERHEAD_BYTES);
    decoder.push(concat([empty, encodeFrame(0x91, new Uint8Array([9])), empty]));
    assert.deepEqual(
      frames.map((f) => [f.type, f.payload.length]),
      [
        [0x90, 0],
        [0x91, 1],
        [0x90, 0],
      ],
    );
  });

  it("frames inside one chunk are zero-copy views; a spanning frame is one exact buffer", () => {
    const a = encodeFrame(0x80, new Uint8Array(100).fill(1));
    const b = encodeFrame(0x81, new Uint8Array(300).fill(2));
    const chunk = concat([a, b.subarray(0, 50)]);
    const seen: Uint8Array[] = [];
    const decoder = new FrameDecoder({ onFrame: (_t, p) => seen.push(p) });
    decoder.push(chunk);
    decoder.push(b.subarray(50, 200));
    decoder.push(b.subarray(200));
    assert.equal(seen.length, 2);
    const [first, second] = seen as [Uint8Array, Uint8Array];
    assert.equal(first.buffer, chunk.buffer);
    assert.equal(first.byteOffset, chunk.byteOffset + 5);
    assert.notEqual(second.buffer, chunk.buffer);
    assert.equal(second.byteLength, 300);
    assert.equal(second.buffer.byteLength, 300);
    assert.ok(second.every((x) => x === 2));
  });

  it("frames of a Buffer chunk (a socket's) are plain Uint8Array views of its bytes at their offsets", () => {
    const frames = [0x80, 0x81, 0x82].map((t, i) => encodeFrame(t, new Uint8Array(10 + i).fill(t)));
    // A Buffer that does not start at its ArrayBuffer's start, as a pooled socket read is.
    const backing = Buffer.alloc(200, 0xee);
    const bytes = concat(frames);
    bytes.forEach((x, i) => {
      backing[37 + i] = x;
    });
    const chunk = backing.subarray(37, 37 + bytes.byteLength);
    const seen: { type: number; payload: Uint8Array }[] = [];
    const decoder = new FrameDecoder({ onFrame: (type, payload) => seen.push({ type, payload }) });
    decoder.push(chunk);
    assert.deepEqual(
      seen.map((f) => f.type),
      [0x80, 0x81, 0x82],
    );
    let at = 37;
    for (const [i, f] of seen.entries()) {
      assert.equal(Object.getPrototypeOf(f.payload), Uint8Array.prototype, "not a Buffer");
      assert.equal(f.payload.buffer, backing.buffer);
      assert.equal(f.payload.byteOffset, backing.byteOffset + at + 5);
      assert.equal(f.payload.byteLength, 10 + i);
      assert.ok(f.payload.every((x) => x === f.type));
      at += (frames[i] as Uint8Array).byteLength;
    }
  });
  it("setMaxPayloadBytes applies to the next length", () => {
    const { decoder, frames } = collector(64);
    decoder.push(encodeFrame(0x80, new Uint8Array(64)));
    decoder.setMaxPayloadBytes(4096);
    decoder.push(encodeFrame(0x80, new Uint8Array(4096)));
    decoder.setMaxPayloadBytes(10);
    expectError(
      () => decoder.push(encodeFrame(0x80, new Uint8Array(11))),
      Code.ResourceExhausted,
      "frame-too-large",
    );
    assert.equal(frames.length, 2);
  });

  it("bufferedBytes counts a partial frame", () => {
    const frame = encodeFrame(0x80, new Uint8Array(20));
    for (let cut = 0; cut < frame.length; cut++) {
      const { decoder } = collector();
      decoder.push(frame.subarray(0, cut));
      assert.equal(decoder.bufferedBytes, cut, `cut ${cut}`);
      decoder.push(frame.subarray(cut));
      assert.equal(decoder.bufferedBytes, 0);
    }
  });

  it("pause inside onFrame holds the rest of the chunk until resume", () => {
    const parts = [1, 2, 3, 4].map((i) => encodeFrame(0x80 + i, new Uint8Array([i])));
    const got: number[] = [];
    const decoder: FrameDecoder = new FrameDecoder({
      onFrame: (type) => {
        got.push(type);
        if (type === 0x82) decoder.pause();
      },
    });
    decoder.push(concat(parts.slice(0, 3)));
    assert.deepEqual(got, [0x81, 0x82]);
    assert.equal(decoder.bufferedBytes, 10);
    decoder.push(parts[3] as Uint8Array);
    assert.deepEqual(got, [0x81, 0x82]);
    decoder.resume();
    assert.deepEqual(got, [0x81, 0x82, 0x83, 0x84]);
    assert.equal(decoder.bufferedBytes, 0);
  });

  it("an exception from onFrame propagates and kills the decoder", () => {
    const decoder = new FrameDecoder({
      onFrame: () => {
        throw new NearwireError(Code.Internal, "handler failed");
      },
    });
    assert.throws(
      () => decoder.push(encodeFrame(0x80, new Uint8Array(1))),
      (e: NearwireError) => e.code === Code.Internal,
    );
    assert.throws(
      () => decoder.push(new Uint8Array(0)),
      (e: NearwireError) => e.code === Code.Internal,
    );
  });

  it("rejects an invalid limit", () => {
    expectError(
      () => new FrameDecoder({ maxPayloadBytes: -1, onFrame() {} }),
      Code.InvalidArgument,
      undefined,
    );
  });
});

describe("encodeFrameInto", () => {
  it("batches frames into one buffer and returns bytes written; -1 when out of room", () => {
    const dest = new Uint8Array(40);
    let off = 0;
    for (const p of [[1], [2, 2], []]) {
      const n = encodeFrameInto(dest, off, 0x80, new Uint8Array(p));
      assert.equal(n, p.length + FRAME_OVERHEAD_BYTES);
      off += n;
    }
    assert.equal(off, 30);
    assert.equal(encodeFrameInto(dest, off, 0x80, new Uint8Array(2)), -1);
    assert.equal(encodeFrameInto(dest, off, 0x80, new Uint8Array(1)), 10);
    const { decoder, frames } = collector();
    decoder.push(dest);
    assert.deepEqual(
      frames.map((f) => f.payload.length),
      [1, 2, 0, 1],
    );
  });

  it("rejects a type outside 0..255", () => {
    for (const t of [-1, 256, 1.5]) {
      expectError(() => encodeFrame(t, new Uint8Array(0)), Code.InvalidArgument, "malformed-frame");
    }
  });
});
