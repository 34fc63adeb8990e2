import assert from "node:assert/strict";
import { test } from "node:test";
import type { MessageCodec } from "../src/codec.js";
import { Code, jsonCodec, messageType, NearwireError } from "../src/index.js";
import { decodeChecked, encodeChecked } from "../src/rpc/bound-method.js";

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

test("decodeChecked / encodeChecked: a codec that throws something other than an Error still gives the typed error, naming what it threw", () => {
  for (const [thrown, text] of [
    [undefined, "undefined"],
    [null, "null"],
    ["a string", "a string"],
    [42, "42"],
    [new RangeError("out of range"), "out of range"],
  ] as const) {
    const codec: MessageCodec<unknown> = {
      decodesInPlace: false,
      encode() {
        throw thrown;
      },
      decode() {
        throw thrown;
      },
    };
    const frame = new Uint8Array([1, 2, 3, 4]);
    assert.throws(
      () => decodeChecked(codec, frame, 0, 4, false, 1 << 20, "request"),
      (err: NearwireError) => {
        assert.ok(err instanceof NearwireError, text);
        assert.equal(err.code, Code.InvalidArgument, text);
        assert.equal(err.reason, "decode-failed");
        assert.equal(err.message, `request decode failed: ${text}`);
        return true;
      },
    );
    assert.throws(
      () => encodeChecked(codec, { n: 1 }, 1 << 20, "response"),
      (err: NearwireError) => {
        assert.ok(err instanceof NearwireError, text);
        assert.equal(err.code, Code.Internal, text);
        assert.equal(err.reason, "encode-failed");
        assert.equal(err.message, `response encode failed: ${text}`);
        return true;
      },
    );
  }
});

test("jsonCodec: a value whose toJSON throws something other than an Error fails INTERNAL encode-failed, naming it", () => {
  for (const [thrown, text] of [
    [undefined, "undefined"],
    ["nope", "nope"],
  ] as const) {
    const codec = jsonCodec.forType(messageType<unknown>("test.Any"));
    assert.throws(
      () =>
        codec.encode({
          toJSON() {
            throw thrown;
          },
        }),
      (err: NearwireError) => {
        assert.ok(err instanceof NearwireError, text);
        assert.equal(err.code, Code.Internal);
        assert.equal(err.reason, "encode-failed");
        assert.equal(err.message, `json encode failed: ${text}`);
        return true;
      },
    );
  }
});

test("decodeChecked: an owned message goes to decodeOwnedRange where the codec has it, and only then", () => {
  const frame = Uint8Array.from({ length: 40 }, (_, i) => i);
  for (const owned of [false, true]) {
    for (const withOwned of [false, true]) {
      const codec = viewCodec(true);
      if (withOwned)
        codec.decodeOwnedRange = (bytes, start, end) => {
          codec.calls.push("decodeOwnedRange");
          return bytes.subarray(start, end);
        };
      const got = decodeChecked(codec, frame, 4, 30, false, 1000, "request", owned);
      assert.deepEqual(got, frame.subarray(4, 30));
      assert.deepEqual(codec.calls, [owned && withOwned ? "decodeOwnedRange" : "decodeRange"]);
    }
  }
  // Its failure is a decode failure like decode's, and a limit still comes first.
  const codec = viewCodec(false);
  codec.decodeOwnedRange = () => {
    throw new TypeError("bad bytes");
  };
  assert.throws(
    () => decodeChecked(codec, frame, 0, 40, false, 1000, "request", true),
    (e: NearwireError) => e.code === Code.InvalidArgument && e.reason === "decode-failed",
  );
  assert.throws(
    () => decodeChecked(codec, frame, 0, 40, false, 39, "request", true),
    (e: NearwireError) => e.code === Code.ResourceExhausted && e.reason === "message-too-large",
  );
});
