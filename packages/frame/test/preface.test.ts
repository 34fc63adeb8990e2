import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { field, hex, readVectors } from "@nearwire/conformance";
import { Code, NearwireError } from "@nearwire/core";
import { FrameType } from "@nearwire/core/protocol";
import {
  decodeGoAway,
  decodeHello,
  encodeFrame,
  encodeGoAway,
  encodeHello,
  FEATURE_BATCH,
  FEATURE_CREDIT_BYTES,
  FEATURE_CREDIT_WINDOW,
  FrameDecoder,
  GOAWAY_MAX_MESSAGE_BYTES,
  HELLO_FEATURES_TAG,
  HELLO_MAGIC,
  HELLO_WITH_FEATURES_BYTES,
  HELLO_WITH_WINDOW_BYTES,
  type Hello,
  PROTOCOL_VERSION,
} from "../src/index.js";

const vectors = readVectors();

function decodeOne(bytes: Uint8Array): { type: number; payload: Uint8Array } {
  const out: { type: number; payload: Uint8Array }[] = [];
  new FrameDecoder({ onFrame: (type, payload) => out.push({ type, payload }) }).push(bytes);
  assert.equal(out.length, 1);
  return out[0] as { type: number; payload: Uint8Array };
}

function isBadPreface(err: unknown): boolean {
  return (
    err instanceof NearwireError &&
    err.code === Code.InvalidArgument &&
    err.reason === "bad-preface"
  );
}

describe("HELLO (PROTOCOL.md §4)", () => {
  it("constants", () => {
    assert.equal(PROTOCOL_VERSION, 1);
    assert.equal(new TextDecoder().decode(HELLO_MAGIC), "NEARWIRE");
  });

  for (const name of [
    "hello-client",
    "hello-server-64k",
    "hello-version-2",
    "batch-hello",
    "credit-window-hello",
  ]) {
    it(`vector ${name} encodes and decodes`, () => {
      const v = vectors.get(name);
      assert.ok(v !== undefined);
      const hello: Hello = {
        version: Number(field(v, "version")),
        flags: Number(field(v, "flags")),
        maxFrameBytes: Number(field(v, "max-frame-bytes")),
      };
      if (v.fields.has("features")) hello.features = Number(field(v, "features"));
      if (v.fields.has("credit-window-bytes"))
        hello.creditWindowBytes = Number(field(v, "credit-window-bytes"));
      const frame = hex(v, "frame");
      assert.deepEqual(new Uint8Array(encodeFrame(FrameType.Hello, encodeHello(hello))), frame);
      const got = decodeOne(frame);
      assert.equal(got.type, FrameType.Hello);
      assert.deepEqual(decodeHello(got.payload), hello);
    });
  }

  it("ignores bytes past 16 and unknown flag bits", () => {
    const long = new Uint8Array(24);
    long.set(encodeHello({ version: 1, maxFrameBytes: 65536, flags: 0xffff }));
    assert.deepEqual(decodeHello(long), { version: 1, flags: 0xffff, maxFrameBytes: 65536 });
  });

  it("reads the features field only behind its FEAT tag, in a payload of at least 24 bytes", () => {
    const plain = { version: 1, flags: 0, maxFrameBytes: 65536 };
    const withFeatures = encodeHello({ ...plain, features: FEATURE_BATCH });
    assert.equal(withFeatures.byteLength, HELLO_WITH_FEATURES_BYTES);
    assert.deepEqual(withFeatures.subarray(16, 20), HELLO_FEATURES_TAG);
    assert.deepEqual(decodeHello(withFeatures), { ...plain, features: FEATURE_BATCH });
    // Bits it does not know are passed on (the caller looks at the ones it knows).
    const all = encodeHello({ ...plain, features: 0xffff_ffff });
    assert.equal(decodeHello(all).features, 0xffff_ffff);
    // Bytes past 24 are ignored.
    const longer = new Uint8Array(40).fill(0xee);
    longer.set(withFeatures);
    assert.deepEqual(decodeHello(longer), { ...plain, features: FEATURE_BATCH });
    // Other bytes past 16 announce nothing: a wrong tag, a cut field, the interop peer's "future".
    const wrongTag = withFeatures.slice();
    wrongTag[19] = 0x53; // "FEAS"
    const cut = withFeatures.subarray(0, 23);
    const future = new Uint8Array(22);
    future.set(encodeHello(plain));
    future.set(new TextEncoder().encode("future"), 16);
    for (const payload of [wrongTag, cut, future, encodeHello(plain)])
      assert.deepEqual(decodeHello(payload), plain);
    assert.throws(
      () => encodeHello({ ...plain, features: 2 ** 32 }),
      (e: unknown) => e instanceof NearwireError && e.code === Code.InvalidArgument,
    );
  });

  it("reads the byte window only with its feature bit, in a payload of at least 28 bytes", () => {
    const plain = { version: 1, flags: 0, maxFrameBytes: 65536 };
    const features = FEATURE_CREDIT_BYTES | FEATURE_CREDIT_WINDOW;
    const withWindow = encodeHello({ ...plain, features, creditWindowBytes: 300_000 });
    assert.equal(withWindow.byteLength, HELLO_WITH_WINDOW_BYTES);
    assert.deepEqual(decodeHello(withWindow), { ...plain, features, creditWindowBytes: 300_000 });
    // Without the bit, bytes 24–27 are ignored (as any bytes past 24).
    const noBit = withWindow.slice();
    noBit[23] = FEATURE_CREDIT_BYTES;
    assert.deepEqual(decodeHello(noBit), { ...plain, features: FEATURE_CREDIT_BYTES });
    // The bit in a payload too short for the field: no window; the bits as sent.
    assert.deepEqual(decodeHello(withWindow.subarray(0, 27)), { ...plain, features });
    // A window is written only with features that announce it.
    for (const bad of [
      { ...plain, creditWindowBytes: 65536 },
      { ...plain, features: FEATURE_CREDIT_BYTES, creditWindowBytes: 65536 },
      { ...plain, features, creditWindowBytes: 2 ** 32 },
      { ...plain, features, creditWindowBytes: -1 },
    ]) {
      assert.throws(
        () => encodeHello(bad),
        (e: unknown) => e instanceof NearwireError && e.code === Code.InvalidArgument,
      );
    }
  });

  it("bad payloads are INVALID_ARGUMENT bad-preface", () => {
    const good = encodeHello({ version: 1, maxFrameBytes: 65536 });
    assert.throws(() => decodeHello(good.subarray(0, 15)), isBadPreface);
    assert.throws(() => decodeHello(new Uint8Array(0)), isBadPreface);
    const magic = good.slice();
    magic[0] = 0x6e;
    assert.throws(() => decodeHello(magic), isBadPreface);
    assert.throws(
      () => decodeHello(encodeHello({ version: 1, maxFrameBytes: 1023 })),
      isBadPreface,
    );
    assert.deepEqual(
      decodeHello(encodeHello({ version: 1, maxFrameBytes: 1024 })).maxFrameBytes,
      1024,
    );
  });

  it("encodeHello rejects out-of-range fields", () => {
    for (const h of [
      { version: 0x10000, maxFrameBytes: 1024 },
      { version: 1, maxFrameBytes: 2 ** 32 },
      { version: 1, maxFrameBytes: -1 },
      { version: 1, maxFrameBytes: 1024, flags: 1.5 },
    ]) {
      assert.throws(
        () => encodeHello(h),
        (e: NearwireError) => e.code === Code.InvalidArgument,
      );
    }
  });
});

describe("GOAWAY (PROTOCOL.md §4)", () => {
  for (const name of ["goaway-version", "goaway-bad-preface", "goaway-crc"]) {
    it(`vector ${name} encodes and decodes`, () => {
      const v = vectors.get(name);
      assert.ok(v !== undefined);
      const code = Number(field(v, "code"));
      const message = field(v, "message");
      const frame = hex(v, "frame");
      assert.deepEqual(
        new Uint8Array(encodeFrame(FrameType.GoAway, encodeGoAway(code, message))),
        frame,
      );
      const got = decodeOne(frame);
      assert.equal(got.type, FrameType.GoAway);
      assert.deepEqual(decodeGoAway(got.payload), { code, message });
    });
  }

  it("empty text; invalid UTF-8 is replaced; long text is cut at a character boundary", () => {
    assert.deepEqual(decodeGoAway(new Uint8Array([14])), { code: 14, message: "" });
    assert.deepEqual(decodeGoAway(new Uint8Array([13, 0xff, 0x41])), {
      code: 13,
      message: "\ufffdA",
    });
    const long = encodeGoAway(3, "é".repeat(1000));
    assert.ok(long.length <= 1 + GOAWAY_MAX_MESSAGE_BYTES);
    assert.equal(decodeGoAway(long).message, "é".repeat(GOAWAY_MAX_MESSAGE_BYTES / 2));
  });

  it("an empty payload is INVALID_ARGUMENT malformed-frame; a bad code is rejected", () => {
    assert.throws(
      () => decodeGoAway(new Uint8Array(0)),
      (e: NearwireError) => e.code === Code.InvalidArgument && e.reason === "malformed-frame",
    );
    assert.throws(
      () => encodeGoAway(256, ""),
      (e: NearwireError) => e.code === Code.InvalidArgument,
    );
  });
});
