import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Code, messageType, NearwireError } from "@nearwire/core";
import fc from "fast-check";
import { createMsgpackCodec } from "../src/index.js";

const AnyType = messageType<unknown>("test.Any");
const SEED = 0x5eed;

function assertDecodeFailed(fn: () => unknown): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof NearwireError, `not a NearwireError: ${String(err)}`);
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.reason, "decode-failed");
    return true;
  });
}

/** Seeded pseudo-random bytes (xorshift32), so failures reproduce. */
function randomBytes(seed: number, n: number): Uint8Array {
  let x = seed >>> 0 || 1;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const fixed: unknown[] = [
  null,
  true,
  0,
  4294967295,
  2 ** 53 - 1,
  -(2 ** 53 - 1),
  1.5,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  "",
  "héllo wörld 日本語 😀 𝄞",
  "x".repeat(70_000),
  {},
  { a: 1, nested: { list: [1, "two", { three: 3 }], empty: {} } },
  [],
  new Uint8Array(0),
  new Uint8Array(1 << 20).fill(7),
  { seq: 1, last: false, data: new Uint8Array([1, 2, 3]) },
];

describe("msgpack codec", () => {
  const codec = createMsgpackCodec().forType(AnyType);

  test("name and flags", () => {
    assert.equal(createMsgpackCodec().name, "msgpack");
    assert.equal(codec.decodesInPlace, true);
  });

  test("round-trips fixed values, including NaN, ±Infinity, astral text and 1 MiB bytes", () => {
    for (const value of fixed) assert.deepStrictEqual(codec.decode(codec.encode(value)), value);
  });

  test("-0 decodes as 0 (documented: sent as an integer)", () => {
    assert.ok(Object.is(codec.decode(codec.encode(-0)), 0));
  });

  test("bin values are views of the input (decodesInPlace)", () => {
    const bytes = codec.encode({ data: new Uint8Array([9, 8, 7]) });
    const decoded = codec.decode(bytes) as { data: Uint8Array };
    assert.equal(decoded.data.buffer, bytes.buffer);
  });

  test("property: decode(encode(x)) deep-equals x", () => {
    const text = fc.oneof(fc.string({ unit: "binary" }), fc.constantFrom("", "😀", "\u0000"));
    const leaf = fc.oneof(
      text,
      fc.boolean(),
      fc.constant(null),
      fc.integer({ min: 0, max: 0xffffffff }),
      fc.maxSafeInteger(),
      fc.double({ noDefaultInfinity: false }).filter((d) => !Object.is(d, -0)),
      fc.uint8Array({ maxLength: 300 }),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        leaf,
        fc.array(tie("node"), { maxLength: 5 }),
        tie("obj"),
      ),
      obj: fc.dictionary(
        text.filter((k) => k !== "__proto__"),
        tie("node"),
        { maxKeys: 5, noNullPrototype: true },
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        assert.deepStrictEqual(codec.decode(codec.encode(v)), v);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  test("encodeInto writes at the offset and returns -1 when out of room", () => {
    const value = { text: "hello", n: 42 };
    const expected = codec.encode(value);
    const dest = new Uint8Array(expected.byteLength + 10).fill(0xee);
    assert.equal(codec.encodeInto?.(value, dest, 10), expected.byteLength);
    assert.deepStrictEqual(dest.subarray(10), expected);
    assert.ok(dest.subarray(0, 10).every((b) => b === 0xee));
    const small = new Uint8Array(expected.byteLength - 1).fill(0xee);
    assert.equal(codec.encodeInto?.(value, small, 0), -1);
    assert.ok(
      small.every((b) => b === 0xee),
      "nothing written when out of room",
    );
    assert.equal(codec.encodeInto?.(value, dest, dest.byteLength + 1), -1);
  });

  test("encode of a value MessagePack cannot carry throws INTERNAL encode-failed, then still works", () => {
    assert.throws(
      () => codec.encode({ big: 10n }),
      (err: unknown) =>
        err instanceof NearwireError &&
        err.code === Code.Internal &&
        err.reason === "encode-failed",
    );
    assert.deepStrictEqual(codec.decode(codec.encode({ ok: 1 })), { ok: 1 });
  });

  test("every strict prefix of a valid encoding fails with decode-failed", () => {
    const full = codec.encode({
      id: "abc😀",
      tags: ["a", "b"],
      n: 2 ** 40,
      f: 1.25,
      b: new Uint8Array(20),
    });
    for (let n = 0; n < full.byteLength; n++)
      assertDecodeFailed(() => codec.decode(full.subarray(0, n)));
    assert.equal(
      (codec.decode(full) as { id: string }).id,
      "abc😀",
      "codec still decodes good input",
    );
  });

  test("trailing bytes fail with decode-failed", () => {
    const full = codec.encode({ a: 1 });
    const longer = new Uint8Array(full.byteLength + 1);
    longer.set(full);
    assertDecodeFailed(() => codec.decode(longer));
  });

  test("random bytes: decode-failed, or a value (documented: any well-formed MessagePack decodes)", () => {
    let failed = 0;
    for (let i = 0; i < 2000; i++) {
      const bytes = randomBytes(i + 1, 1 + (i % 64));
      try {
        codec.decode(bytes);
      } catch (err) {
        assert.ok(err instanceof NearwireError, `seed ${i + 1}: ${String(err)}`);
        assert.equal(err.code, Code.InvalidArgument);
        assert.equal(err.reason, "decode-failed");
        failed++;
      }
    }
    assert.ok(failed > 1000, `only ${failed} of 2000 random inputs rejected`);
  });

  test("bytes of another codec (JSON text) fail with decode-failed", () => {
    const json = new TextEncoder().encode(JSON.stringify({ id: "abc", n: 1 }));
    assertDecodeFailed(() => codec.decode(json));
  });

  test("a bin length over decoder.maxBinLength fails with decode-failed", () => {
    const limited = createMsgpackCodec({ decoder: { maxBinLength: 16 } }).forType(AnyType);
    assertDecodeFailed(() => limited.decode(codec.encode(new Uint8Array(17))));
    assert.deepStrictEqual(limited.decode(codec.encode(new Uint8Array(16))), new Uint8Array(16));
  });

  test("a __proto__ map key fails with decode-failed", () => {
    // fixmap(1) { "__proto__": 1 }
    const bytes = new Uint8Array([0x81, 0xa9, ...new TextEncoder().encode("__proto__"), 0x01]);
    assertDecodeFailed(() => codec.decode(bytes));
  });
});
