import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Code, messageType, NearwireError } from "@nearwire/core";
import fc from "fast-check";
import protobuf from "protobufjs";
import { createProtobufCodec } from "../src/index.js";

const { root } = protobuf.parse(`
  syntax = "proto3";
  package test;
  message Inner { string name = 1; }
  message Sample {
    uint32 u32 = 1;
    uint64 u64 = 2;
    int64 i64 = 3;
    fixed64 f64bits = 4;
    double d = 5;
    string s = 6;
    bytes b = 7;
    repeated string tags = 8;
    map<string, string> labels = 9;
    bool flag = 10;
    Inner inner = 11;
  }
`);

interface Sample {
  u32: number;
  u64: number;
  i64: number;
  f64bits: number;
  d: number;
  s: string;
  b: Uint8Array;
  tags: string[];
  labels: Record<string, string>;
  flag: boolean;
  inner: { name: string } | null;
}
const SampleType = messageType<Sample>("test.Sample");
const SEED = 0x5eed;

/** The plain shape of a decoded Sample (absent proto3 fields read their defaults). */
function plain(m: Sample): Sample {
  return {
    u32: m.u32,
    u64: m.u64,
    i64: m.i64,
    f64bits: m.f64bits,
    d: m.d,
    s: m.s,
    b: new Uint8Array(m.b.buffer, m.b.byteOffset, m.b.byteLength),
    tags: [...m.tags],
    labels: { ...m.labels },
    flag: m.flag,
    inner: m.inner ? { name: m.inner.name } : null,
  };
}

function sample(over: Partial<Sample> = {}): Sample {
  return {
    u32: 7,
    u64: 2 ** 40,
    i64: -5,
    f64bits: 2 ** 53 - 1,
    d: 1.25,
    s: "héllo 😀",
    b: new Uint8Array([1, 2, 3]),
    tags: ["a", ""],
    labels: { k: "v" },
    flag: true,
    inner: { name: "in" },
    ...over,
  };
}

function assertDecodeFailed(fn: () => unknown): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof NearwireError, `not a NearwireError: ${String(err)}`);
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.reason, "decode-failed");
    return true;
  });
}

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

const sources = {
  "reflection Root": () => createProtobufCodec(root),
  "record of static types": () =>
    createProtobufCodec({ "test.Sample": root.lookupType("test.Sample") }),
};

for (const [label, make] of Object.entries(sources)) {
  describe(`protobuf codec (${label})`, () => {
    const codec = make().forType(SampleType);

    test("name, flags, NOT_FOUND for an unknown type", () => {
      assert.equal(make().name, "protobuf");
      assert.equal(codec.decodesInPlace, true);
      assert.throws(
        () => make().forType(messageType("test.Nope")),
        (e: unknown) => e instanceof NearwireError && e.code === Code.NotFound,
      );
      assert.throws(
        () => make().forType(messageType("toString")),
        (e: unknown) => e instanceof NearwireError && e.code === Code.NotFound,
      );
    });

    test("round-trips fixed values: extremes, -0, NaN, ±Infinity, empty and absent fields", () => {
      const values = [
        sample(),
        sample({ u32: 0xffffffff, u64: 2 ** 53 - 1, i64: -(2 ** 53 - 1), f64bits: 0 }),
        sample({ d: -0 }),
        sample({ d: Number.NaN }),
        sample({ d: Number.POSITIVE_INFINITY }),
        sample({ d: Number.NEGATIVE_INFINITY }),
        sample({ s: "", b: new Uint8Array(0), tags: [], labels: {}, flag: false, inner: null }),
        sample({ b: new Uint8Array(1 << 20).fill(3) }),
      ];
      for (const v of values) assert.deepStrictEqual(plain(codec.decode(codec.encode(v))), v);
      assert.ok(Object.is(codec.decode(codec.encode(sample({ d: -0 }))).d, -0));
    });

    test("64-bit fields decode as numbers (not Long)", () => {
      const d = codec.decode(codec.encode(sample()));
      assert.equal(typeof d.u64, "number");
      assert.equal(typeof d.i64, "number");
      assert.equal(typeof d.f64bits, "number");
    });

    test("bytes fields are views of the input (decodesInPlace)", () => {
      const bytes = codec.encode(sample());
      assert.equal(codec.decode(bytes).b.buffer, bytes.buffer);
    });

    test("property: decode(encode(x)) deep-equals x", () => {
      const text = fc.oneof(fc.string({ unit: "binary" }), fc.constantFrom("", "😀"));
      const arb = fc.record(
        {
          u32: fc.integer({ min: 0, max: 0xffffffff }),
          u64: fc.maxSafeNat(),
          i64: fc.maxSafeInteger(),
          f64bits: fc.maxSafeNat(),
          d: fc.double(),
          s: text,
          b: fc.uint8Array({ maxLength: 200 }),
          tags: fc.array(text, { maxLength: 5 }),
          labels: fc.dictionary(
            text.filter((k) => k !== "__proto__"),
            text,
            { maxKeys: 5, noNullPrototype: true },
          ),
          flag: fc.boolean(),
          inner: fc.option(fc.record({ name: text }, { noNullPrototype: true }), { nil: null }),
        },
        { noNullPrototype: true },
      );
      fc.assert(
        fc.property(arb, (v) => {
          assert.deepStrictEqual(plain(codec.decode(codec.encode(v))), v);
        }),
        { seed: SEED, numRuns: 300 },
      );
    });

    test("encodeInto writes at the offset and returns -1 when out of room", () => {
      const v = sample();
      const expected = codec.encode(v);
      const dest = new Uint8Array(expected.byteLength + 3).fill(0xee);
      assert.equal(codec.encodeInto?.(v, dest, 3), expected.byteLength);
      assert.deepStrictEqual(dest.subarray(3), expected);
      const small = new Uint8Array(expected.byteLength - 1).fill(0xee);
      assert.equal(codec.encodeInto?.(v, small, 0), -1);
      assert.ok(small.every((b) => b === 0xee));
      assert.deepStrictEqual(codec.encode(v), expected, "writer state is clean afterwards");
    });

    test("a 64-bit value beyond 2^53-1 fails with decode-failed (no silent precision loss)", () => {
      const raw = root.lookupType("test.Sample").encode({ u64: "18446744073709551615" }).finish();
      assertDecodeFailed(() => codec.decode(raw));
      const neg = root.lookupType("test.Sample").encode({ i64: "-9007199254740993" }).finish();
      assertDecodeFailed(() => codec.decode(neg));
    });

    test("invalid UTF-8 in a proto3 string fails with decode-failed", () => {
      assertDecodeFailed(() => codec.decode(new Uint8Array([0x32, 0x02, 0xc3, 0x28])));
    });

    test("prefixes: decode-failed, or (cut at a field boundary, undetectable) a shorter message", () => {
      const full = codec.encode(sample());
      let failed = 0;
      for (let n = 0; n < full.byteLength; n++) {
        try {
          const d = codec.decode(full.subarray(0, n));
          assert.notDeepStrictEqual(plain(d), sample(), `prefix ${n} decoded as the full value`);
        } catch (err) {
          assert.ok(err instanceof NearwireError && err.reason === "decode-failed", String(err));
          failed++;
        }
      }
      assert.ok(failed > full.byteLength / 2, `${failed} of ${full.byteLength} prefixes rejected`);
      assert.deepStrictEqual(plain(codec.decode(full)), sample(), "codec still decodes good input");
    });

    test("random bytes and other codecs' bytes: decode-failed or a value, never another error", () => {
      let failed = 0;
      const inputs = [
        ...Array.from({ length: 2000 }, (_, i) => randomBytes(i + 1, 1 + (i % 64))),
        new TextEncoder().encode(JSON.stringify(sample())),
      ];
      for (const bytes of inputs) {
        try {
          codec.decode(bytes);
        } catch (err) {
          assert.ok(err instanceof NearwireError, String(err));
          assert.equal(err.code, Code.InvalidArgument);
          assert.equal(err.reason, "decode-failed");
          failed++;
        }
      }
      assert.ok(failed > 1000, `only ${failed} of ${inputs.length} rejected`);
      assertDecodeFailed(() => codec.decode(new TextEncoder().encode(JSON.stringify(sample()))));
    });

    test("encode of a malformed value throws INTERNAL encode-failed, then still works", () => {
      assert.throws(
        () => codec.encode({ ...sample(), tags: [null] } as unknown as Sample),
        (e: unknown) =>
          e instanceof NearwireError && e.code === Code.Internal && e.reason === "encode-failed",
      );
      assert.deepStrictEqual(plain(codec.decode(codec.encode(sample()))), sample());
    });
  });
}

test("longs: 'long' returns protobufjs Long values", () => {
  const codec = createProtobufCodec(root, { longs: "long" }).forType(SampleType);
  const d = codec.decode(codec.encode(sample())) as unknown as { u64: { toNumber(): number } };
  assert.equal(typeof d.u64, "object");
  assert.equal(d.u64.toNumber(), 2 ** 40);
});
