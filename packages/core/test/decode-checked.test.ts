import assert from "node:assert/strict";
import { test } from "node:test";
import type { MessageCodec } from "../src/codec.js";
import { decodeChecked } from "../src/rpc/bound-method.js";

/** A pass-through codec (the value is a view of its input), with or without decodeRange. */
function viewCodec(withRange: boolean): MessageCodec<Uint8Array> & { calls: string[] } {
  const calls: string[] = [];
  const codec: MessageCodec<Uint8Array> & { calls: string[] } = {
    calls,
    decodesInPlace: true,
    encode: (v) => v,
    decode(bytes) {
      calls.push("decode");
      return bytes;
    },
  };
  if (withRange) {
    codec.decodeRange = (bytes, start, end) => {
      calls.push("decodeRange");
      return bytes.subarray(start, end);
    };
  }
  return codec;
}

test("decodeChecked: the message in [offset, end), copied first only from a transient frame, by decode or decodeRange", () => {
  for (const size of [0, 5, 64, 65, 1000, 4096, 4097, 20_000]) {
    for (const offset of [0, 4, 40]) {
      // `after`: bytes of the frame past the message (a BATCH's next entries).
      for (const after of [0, 9]) {
        for (const transient of [false, true]) {
          for (const withRange of [false, true]) {
            const frame = new Uint8Array(offset + size + after);
            for (let i = 0; i < frame.length; i++) frame[i] = (i * 7 + 3) & 0xff;
            const end = offset + size;
            const expected = frame.slice(offset, end);
            const codec = viewCodec(withRange);
            const what = `size ${size} offset ${offset} after ${after} transient ${transient} range ${withRange}`;
            const value = decodeChecked(codec, frame, offset, end, transient, 1 << 20, "response");
            assert.ok(value instanceof Uint8Array, what);
            assert.deepEqual(value, expected, what);
            assert.deepEqual(codec.calls, [withRange ? "decodeRange" : "decode"], what);
            // The frame's buffer is reused (a ring slot): a transient frame's value must not change.
            frame.fill(0);
            if (transient) assert.deepEqual(value, expected, `${what}: kept its copy`);
            else if (size > 0) assert.notDeepEqual(value, expected, `${what}: a view, no copy`);
          }
        }
      }
    }
  }
});

test("decodeChecked: a message over maxBytes is RESOURCE_EXHAUSTED before any decode", () => {
  const codec = viewCodec(true);
  assert.throws(
    () => decodeChecked(codec, new Uint8Array(104), 4, 104, false, 99, "request"),
    /request 100 B > maxMessageBytes 99/,
  );
  assert.deepEqual(codec.calls, []);
  const fits = decodeChecked(codec, new Uint8Array(103), 4, 103, true, 99, "request") as Uint8Array;
  assert.equal(fits.byteLength, 99);
});
