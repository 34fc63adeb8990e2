import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { codecSuite } from "@nearwire/conformance";
import type { MessageType } from "@nearwire/core";
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

const text = fc.oneof(fc.string({ unit: "binary" }), fc.constantFrom("", "😀"));
const sampleArbitrary: fc.Arbitrary<Sample> = fc.record(
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

const sources = {
  "reflection Root": () => createProtobufCodec(root),
  "record of static types": () =>
    createProtobufCodec({ "test.Sample": root.lookupType("test.Sample") }),
};

for (const [label, make] of Object.entries(sources)) {
  codecSuite({
    name: `protobuf codec (${label}, conformance)`,
    codec: make(),
    codecName: "protobuf",
    decodesInPlace: true,
    unknownTypes: ["test.Nope", "toString"],
    types: [
      {
        type: SampleType as MessageType<unknown>,
        values: [
          sample(),
          sample({ u32: 0xffffffff, u64: 2 ** 53 - 1, i64: -(2 ** 53 - 1), f64bits: 0 }),
          sample({ d: -0 }),
          sample({ d: Number.NaN }),
          sample({ d: Number.POSITIVE_INFINITY }),
          sample({ d: Number.NEGATIVE_INFINITY }),
          sample({ s: "", b: new Uint8Array(0), tags: [], labels: {}, flag: false, inner: null }),
          sample({ b: new Uint8Array(1 << 20).fill(3) }),
        ],
        canonical: (v) => plain(v as Sample),
        arbitrary: sampleArbitrary,
        bytesField: (v) => (v as Sample).b,
        foreign: () => [new TextEncoder().encode(JSON.stringify(sample()))],
        unencodable: [{ ...sample(), tags: [null] }],
      },
    ],
    truncation: "field-boundary",
    randomBytes: { count: 2000, maxBytes: 64, minRejected: 1001 },
    rejectsForeign: true,
  });

  describe(`protobuf codec (${label})`, () => {
    const codec = make().forType(SampleType);

    test("-0 survives a double field", () => {
      assert.ok(Object.is(codec.decode(codec.encode(sample({ d: -0 }))).d, -0));
    });

    test("64-bit fields decode as numbers (not Long)", () => {
      const d = codec.decode(codec.encode(sample()));
      assert.equal(typeof d.u64, "number");
      assert.equal(typeof d.i64, "number");
      assert.equal(typeof d.f64bits, "number");
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
  });
}

test("longs: 'long' returns protobufjs Long values", () => {
  const codec = createProtobufCodec(root, { longs: "long" }).forType(SampleType);
  const d = codec.decode(codec.encode(sample())) as unknown as { u64: { toNumber(): number } };
  assert.equal(typeof d.u64, "object");
  assert.equal(d.u64.toNumber(), 2 ** 40);
});
