import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { codecSuite } from "@nearwire/conformance";
import { Code, messageType, NearwireError } from "@nearwire/core";
import fc from "fast-check";
import { createMsgpackCodec } from "../src/index.js";

const AnyType = messageType<unknown>("test.Any");

function assertDecodeFailed(fn: () => unknown): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof NearwireError, `not a NearwireError: ${String(err)}`);
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.reason, "decode-failed");
    return true;
  });
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
const anyValue = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("node"), { maxLength: 5 }), tie("obj")),
  obj: fc.dictionary(
    text.filter((k) => k !== "__proto__"),
    tie("node"),
    { maxKeys: 5, noNullPrototype: true },
  ),
})).node;

codecSuite({
  name: "msgpack codec (conformance)",
  codec: createMsgpackCodec(),
  codecName: "msgpack",
  decodesInPlace: true,
  types: [
    {
      type: AnyType,
      values: fixed,
      sample: { id: "abc😀", tags: ["a", "b"], n: 2 ** 40, f: 1.25, b: new Uint8Array(20) },
      arbitrary: anyValue,
      bytesField: (v) => (v as { b: Uint8Array }).b,
      foreign: () => [new TextEncoder().encode(JSON.stringify({ id: "abc", n: 1 }))],
      unencodable: [{ big: 10n }],
    },
  ],
  truncation: "reject",
  randomBytes: { count: 2000, maxBytes: 64, minRejected: 1001 },
  rejectsForeign: true,
});

describe("msgpack codec", () => {
  const codec = createMsgpackCodec().forType(AnyType);

  test("-0 decodes as 0 (documented: sent as an integer)", () => {
    assert.ok(Object.is(codec.decode(codec.encode(-0)), 0));
  });

  test("trailing bytes fail with decode-failed", () => {
    const full = codec.encode({ a: 1 });
    const longer = new Uint8Array(full.byteLength + 1);
    longer.set(full);
    assertDecodeFailed(() => codec.decode(longer));
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
