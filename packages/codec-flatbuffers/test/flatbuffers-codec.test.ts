import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { codecSuite } from "@nearwire/conformance";
import type { MessageType } from "@nearwire/core";
import { Code, messageType, NearwireError } from "@nearwire/core";
import fc from "fast-check";
import { ByteBuffer } from "flatbuffers";
import type { FlatbuffersTable } from "../src/index.js";
import { createFlatbuffersCodec } from "../src/index.js";

/**
 * table Item { name:string; n:uint32; big:uint64; d:double; data:[ubyte]; words:[string]; child:Child; kids:[Child]; }
 * table Child { label:string; }
 * Written by hand against the flatbuffers Builder, as flatc-generated code would be.
 */
interface Child {
  label: string;
}
interface Item {
  name: string;
  n: number;
  big: number;
  d: number;
  data: Uint8Array;
  words: string[];
  child: Child | null;
  kids: Child[];
}
const ItemType = messageType<Item>("test.Item");

/** A ByteBuffer that records every read outside its bytes (the JS library would return garbage). */
class CheckedByteBuffer extends ByteBuffer {
  static violations: string[] = [];
  private check(offset: number, size: number): void {
    if (!(offset >= 0 && offset + size <= this.capacity()))
      CheckedByteBuffer.violations.push(`${offset}+${size}`);
  }
  override readUint8(o: number) {
    this.check(o, 1);
    return super.readUint8(o);
  }
  override readInt8(o: number) {
    this.check(o, 1);
    return super.readInt8(o);
  }
  override readUint16(o: number) {
    this.check(o, 2);
    return super.readUint16(o);
  }
  override readInt16(o: number) {
    this.check(o, 2);
    return super.readInt16(o);
  }
  override readInt32(o: number) {
    this.check(o, 4);
    return super.readInt32(o);
  }
  override readUint32(o: number) {
    this.check(o, 4);
    return super.readUint32(o);
  }
  override readUint64(o: number) {
    this.check(o, 8);
    return super.readUint64(o);
  }
  override readFloat64(o: number) {
    this.check(o, 8);
    return super.readFloat64(o);
  }
}

function childDecode(bb: ByteBuffer, t: number): Child {
  const o = bb.__offset(t, 4);
  return { label: o ? (bb.__string(t + o) as string) : "" };
}

const itemTable: FlatbuffersTable<Item> = {
  encode(b, v) {
    const name = b.createString(v.name);
    const data = b.createByteVector(v.data);
    const words = b.createObjectOffsetList(v.words);
    b.startVector(4, words.length, 4);
    for (let i = words.length - 1; i >= 0; i--) b.addOffset(words[i] as number);
    const wordsVec = b.endVector();
    const child = (c: Child) => {
      const label = b.createString(c.label);
      b.startObject(1);
      b.addFieldOffset(0, label, 0);
      return b.endObject();
    };
    const childOff = v.child === null ? 0 : child(v.child);
    const kids = v.kids.map(child);
    b.startVector(4, kids.length, 4);
    for (let i = kids.length - 1; i >= 0; i--) b.addOffset(kids[i] as number);
    const kidsVec = b.endVector();
    b.startObject(8);
    b.addFieldOffset(0, name, 0);
    b.addFieldInt32(1, v.n, 0);
    b.addFieldInt64(2, BigInt(v.big), 0n);
    b.addFieldFloat64(3, v.d, 0);
    b.addFieldOffset(4, data, 0);
    b.addFieldOffset(5, wordsVec, 0);
    b.addFieldOffset(6, childOff, 0);
    b.addFieldOffset(7, kidsVec, 0);
    return b.endObject();
  },
  decode(input) {
    const bb = new CheckedByteBuffer(input.bytes());
    const t = bb.readInt32(0);
    const at = (v: number) => bb.__offset(t, v);
    const vec = (v: number) => (at(v) ? bb.__vector(t + at(v)) : 0);
    const len = (v: number) => (at(v) ? bb.__vector_len(t + at(v)) : 0);
    const words: string[] = [];
    for (let i = 0; i < len(14); i++) words.push(bb.__string(vec(14) + 4 * i) as string);
    const kids: Child[] = [];
    for (let i = 0; i < len(18); i++) kids.push(childDecode(bb, bb.__indirect(vec(18) + 4 * i)));
    const bytes = bb.bytes();
    return {
      name: at(4) ? (bb.__string(t + at(4)) as string) : "",
      n: at(6) ? bb.readUint32(t + at(6)) : 0,
      big: at(8) ? Number(bb.readUint64(t + at(8))) : 0,
      d: at(10) ? bb.readFloat64(t + at(10)) : 0,
      data: at(12) ? bytes.subarray(vec(12), vec(12) + len(12)) : new Uint8Array(0),
      words,
      child: at(16) ? childDecode(bb, bb.__indirect(t + at(16))) : null,
      kids,
    };
  },
  verify(v, t) {
    v.string(t, 4);
    v.field(t, 6, 4);
    v.field(t, 8, 8);
    v.field(t, 10, 8);
    v.vector(t, 12, 1);
    v.vectorOfStrings(t, 14);
    v.subTable(t, 16, (vv, c) => vv.string(c, 4));
    v.vectorOfTables(t, 18, (vv, c) => vv.string(c, 4));
  },
};

function item(over: Partial<Item> = {}): Item {
  return {
    name: "héllo 😀",
    n: 0xffffffff,
    big: 2 ** 53 - 1,
    d: 1.5,
    data: new Uint8Array([1, 2, 3]),
    words: ["a", "", "日本"],
    child: { label: "c" },
    kids: [{ label: "k1" }, { label: "" }],
    ...over,
  };
}

/** Decodes; the result must be a value read entirely in bounds, or a decode-failed error. */
function decodeOrFail(decode: (b: Uint8Array) => Item, bytes: Uint8Array): "ok" | "failed" {
  CheckedByteBuffer.violations = [];
  try {
    decode(bytes);
    assert.deepStrictEqual(CheckedByteBuffer.violations, [], "out-of-bounds read after verify");
    return "ok";
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err;
    assert.ok(err instanceof NearwireError, String(err));
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.reason, "decode-failed");
    assert.deepStrictEqual(CheckedByteBuffer.violations, [], "decode ran on unverified input");
    return "failed";
  }
}

const text = fc.oneof(fc.string({ unit: "binary" }), fc.constantFrom("", "😀"));
const childArbitrary = fc.record({ label: text }, { noNullPrototype: true });
const itemArbitrary: fc.Arbitrary<Item> = fc.record(
  {
    name: text,
    n: fc.integer({ min: 0, max: 0xffffffff }),
    big: fc.maxSafeNat(),
    d: fc.double().filter((d) => !Object.is(d, -0)),
    data: fc.uint8Array({ maxLength: 300 }),
    words: fc.array(text, { maxLength: 5 }),
    child: fc.option(childArbitrary, { nil: null }),
    kids: fc.array(childArbitrary, { maxLength: 4 }),
  },
  { noNullPrototype: true },
);

codecSuite({
  name: "flatbuffers codec (conformance)",
  codec: createFlatbuffersCodec({ "test.Item": itemTable as FlatbuffersTable<unknown> }),
  codecName: "flatbuffers",
  decodesInPlace: true,
  unknownTypes: ["test.Nope", "toString", "__proto__"],
  types: [
    {
      type: ItemType as MessageType<unknown>,
      values: [
        item(),
        item({
          n: 0,
          big: 0,
          d: 0,
          name: "",
          data: new Uint8Array(0),
          words: [],
          child: null,
          kids: [],
        }),
        item({ d: Number.NaN }),
        item({ d: Number.POSITIVE_INFINITY }),
        item({ d: Number.NEGATIVE_INFINITY }),
        item({ d: Number.MIN_VALUE }),
        item({ data: new Uint8Array(1 << 20).fill(9) }),
      ],
      arbitrary: itemArbitrary,
      bytesField: (v) => (v as Item).data,
      foreign: () => [
        new TextEncoder().encode(JSON.stringify({ name: "x", n: 1 })),
        new Uint8Array([0x82, 0xa1, 0x61, 0x01, 0xa1, 0x62, 0x02]),
      ],
      unencodable: [{ ...item(), words: null }],
    },
  ],
  truncation: "reject",
  randomBytes: { count: 3000, minBytes: 4, maxBytes: 123, minRejected: 2901 },
  rejectsForeign: true,
  // Every decode of hostile input must stay inside its bytes, whether it fails or not.
  guardDecode: (decode) => {
    CheckedByteBuffer.violations = [];
    const result = decode();
    assert.deepStrictEqual(
      CheckedByteBuffer.violations,
      [],
      `out-of-bounds read (decode ${String(result)})`,
    );
    return result;
  },
});

describe("flatbuffers codec", () => {
  const codec = createFlatbuffersCodec({ "test.Item": itemTable as FlatbuffersTable<unknown> });
  const c = codec.forType(ItemType);

  test("-0 decodes as 0 (documented: a default value is not written)", () => {
    assert.ok(Object.is(c.decode(c.encode(item({ d: -0 }))).d, 0));
  });

  test("seeded corruption of a valid buffer (1-3 bytes changed): every read stays in bounds", () => {
    const full = c.encode(item());
    let seed = 12345;
    const next = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed >>> 0;
    };
    const results = { ok: 0, failed: 0 };
    for (let i = 0; i < 5000; i++) {
      const bytes = full.slice();
      for (let k = 0; k <= i % 3; k++) bytes[next() % bytes.length] = next() & 0xff;
      results[decodeOrFail((b) => c.decode(b), bytes)]++;
    }
    assert.ok(results.failed > 500, JSON.stringify(results));
  });

  test("hostile headers: vtable size and field offset above 0x7FFF, root past the end", () => {
    const full = c.encode(item());
    const view = new DataView(full.buffer, full.byteOffset, full.byteLength);
    const root = view.getUint32(0, true);
    const vtable = root - view.getInt32(root, true);
    const bigVtable = full.slice();
    new DataView(bigVtable.buffer).setUint16(vtable, 0x8000, true);
    assert.equal(
      decodeOrFail((b) => c.decode(b), bigVtable),
      "failed",
    );
    const bigField = full.slice();
    new DataView(bigField.buffer).setUint16(vtable + 4, 0xfffc, true);
    assert.equal(
      decodeOrFail((b) => c.decode(b), bigField),
      "failed",
    );
    const pastEnd = full.slice();
    new DataView(pastEnd.buffer).setUint32(0, full.byteLength, true);
    assert.equal(
      decodeOrFail((b) => c.decode(b), pastEnd),
      "failed",
    );
  });

  test("nesting deeper than maxDepth fails with decode-failed", () => {
    const shallow = createFlatbuffersCodec(
      { "test.Item": itemTable as FlatbuffersTable<unknown> },
      { maxDepth: 0 },
    ).forType(ItemType);
    assert.equal(
      decodeOrFail((b) => shallow.decode(b), c.encode(item())),
      "failed",
    );
    assert.equal(
      decodeOrFail((b) => shallow.decode(b), c.encode(item({ child: null, kids: [] }))),
      "ok",
    );
  });
});
