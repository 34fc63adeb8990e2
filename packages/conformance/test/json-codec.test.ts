import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Code, jsonCodec, messageType, type NearwireError } from "@nearwire/core";
import fc from "fast-check";
import { codecSuite } from "../src/index.js";

const AnyType = messageType<unknown>("test.Any");

/** JSON values with byte arrays among them (they travel as `{"$bytes": base64}`). */
const withBytes: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small" },
    fc.jsonValue({ maxDepth: 1 }),
    fc.uint8Array({ maxLength: 300 }),
    fc.array(tie("node"), { maxLength: 4 }),
    fc.dictionary(
      fc.string().filter((k) => k !== "__proto__" && k !== "$bytes"),
      tie("node"),
      { maxKeys: 4, noNullPrototype: true },
    ),
  ),
})).node;

const chunk = {
  name: "dir/file.bin",
  offsetBytes: 65536,
  data: Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) & 0xff),
  crc32c: 123456789,
  last: false,
  text: "naïve ☃ 😀",
};

codecSuite({
  name: "json codec (conformance)",
  codec: jsonCodec,
  codecName: "json",
  decodesInPlace: false,
  types: [
    {
      type: AnyType,
      values: [chunk, { a: 1, b: [true, null, "x"] }, { empty: new Uint8Array(0) }, [1, 2, 3]],
      sample: chunk,
      arbitrary: withBytes,
      unencodable: [{ big: 10n }],
    },
  ],
  truncation: "reject",
  // UTF-8 text past the range's length in bytes is written in part before -1 (the contract
  // allows it inside the range).
  untouchedWhenOutOfRoom: false,
  randomBytes: { count: 2000, maxBytes: 64, minRejected: 1900 },
});

describe("json codec encodeIntoRange", () => {
  const codec = jsonCodec.forType(AnyType);
  const encodeIntoRange = codec.encodeIntoRange as NonNullable<typeof codec.encodeIntoRange>;

  test("a range shorter than the message's base64 is refused before any byte is written", () => {
    const value = { data: new Uint8Array(3000) };
    const dest = new Uint8Array(3999).fill(0xee);
    assert.equal(encodeIntoRange(value, dest, 0, 3999), -1);
    assert.ok(dest.every((b) => b === 0xee));
    const n = codec.encode(value).byteLength;
    const big = new Uint8Array(n + 10);
    assert.equal(encodeIntoRange(value, big, 10, n + 10), n);
    assert.deepStrictEqual(codec.decode(big.subarray(10)), value);
  });

  test("non-ASCII text that needs more bytes than the range holds is -1, then fits a larger one", () => {
    const value = { s: "😀".repeat(100) };
    const n = codec.encode(value).byteLength;
    const dest = new Uint8Array(n);
    assert.equal(encodeIntoRange(value, dest, 0, n - 1), -1);
    assert.equal(encodeIntoRange(value, dest, 0, n), n);
    assert.deepStrictEqual(codec.decode(dest), value);
  });

  test("the same object changed between two sends is encoded as it is at each", () => {
    const msg = { seq: 1, data: new Uint8Array([1, 2, 3]) };
    const dest = new Uint8Array(100);
    const first = encodeIntoRange(msg, dest, 0, 10);
    assert.equal(first, -1, "too small");
    msg.seq = 2;
    msg.data = new Uint8Array([9]);
    const n = encodeIntoRange(msg, dest, 0, 100);
    assert.deepStrictEqual(codec.decode(dest.subarray(0, n)), {
      seq: 2,
      data: new Uint8Array([9]),
    });
  });

  test("a flat message with byte arrays, written in pieces, is byte for byte what encode makes", () => {
    // Plain objects of primitives and byte arrays are written without JSON.stringify's text
    // of the whole message; every other shape goes through it. Both must give the same bytes.
    const flat = fc.dictionary(
      fc.string().filter((k) => k !== "__proto__"),
      fc.oneof(
        fc.string(),
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.constant(undefined),
        fc.uint8Array({ maxLength: 200 }),
        fc.uint8Array({ maxLength: 200 }).map((b) => b.subarray(1)),
      ),
      { maxKeys: 6, noNullPrototype: true },
    );
    fc.assert(
      fc.property(flat, fc.nat(), (value, cut) => {
        const want = codec.encode(value);
        const dest = new Uint8Array(want.byteLength + 20).fill(0xee);
        assert.equal(encodeIntoRange(value, dest, 7, dest.byteLength), want.byteLength);
        assert.deepStrictEqual(dest.subarray(7, 7 + want.byteLength), want);
        assert.ok(
          dest.subarray(7 + want.byteLength).every((b) => b === 0xee),
          "past the text",
        );
        assert.ok(
          dest.subarray(0, 7).every((b) => b === 0xee),
          "before start",
        );
        // Any range one byte or more too short is refused.
        const short = 7 + (cut % Math.max(1, want.byteLength));
        if (short < 7 + want.byteLength) assert.equal(encodeIntoRange(value, dest, 7, short), -1);
      }),
      { seed: 20261207, numRuns: 300 },
    );
    // Other shapes holding byte arrays: the same bytes as encode (or the same error).
    const fn = () => 1;
    for (const value of [
      { nested: { data: new Uint8Array([1, 2]) }, n: 1 },
      { list: [new Uint8Array([3])] },
      { buf: Buffer.from([1, 2, 3]), data: new Uint8Array([4]) },
      { data: new Uint8Array([5]), toJSON: () => ({ replaced: true }) },
      Object.assign(Object.create(null), { data: new Uint8Array([6]), s: "x" }),
      { data: new Uint8Array([7]), f: fn, sym: Symbol("s"), u: undefined, nan: Number.NaN },
      { data: new Uint16Array([8]), bytes: new Uint8Array([9]) },
    ]) {
      const want = codec.encode(value);
      const dest = new Uint8Array(want.byteLength);
      assert.equal(encodeIntoRange(value, dest, 0, dest.byteLength), want.byteLength);
      assert.deepStrictEqual(dest, want);
    }
    const big = { big: 1n, data: new Uint8Array(1) };
    assert.throws(() => encodeIntoRange(big, new Uint8Array(4096), 0, 4096), /encode failed/);
  });

  test("a value with no JSON text encodes as no bytes, as encode does", () => {
    assert.equal(codec.encode(undefined).byteLength, 0);
    assert.equal(encodeIntoRange(undefined, new Uint8Array(4), 0, 4), 0);
  });
});

describe("json codec decode", () => {
  const codec = jsonCodec.forType(AnyType);

  /** What the codec's contract says a text decodes to: JSON.parse with the `$bytes` reviver. */
  function reference(bytes: Uint8Array): unknown {
    return JSON.parse(Buffer.from(bytes).toString("utf8"), (_key, v: unknown) => {
      if (v === null || typeof v !== "object" || !("$bytes" in v)) return v;
      const b64 = (v as { $bytes: unknown }).$bytes;
      return typeof b64 === "string" && Object.keys(v).length === 1
        ? new Uint8Array(Buffer.from(b64, "base64"))
        : v;
    });
  }

  const decodeOwnedRange = codec.decodeOwnedRange as NonNullable<typeof codec.decodeOwnedRange>;

  /**
   * The text placed at `PAD` in a larger buffer of 0xee bytes, for `decodeOwnedRange`: the
   * buffer, and a check that nothing outside the range was written.
   */
  const PAD = 5;
  function owned(bytes: Uint8Array): { buf: Uint8Array; outsideUntouched: () => void } {
    const buf = new Uint8Array(bytes.byteLength + 2 * PAD).fill(0xee);
    buf.set(bytes, PAD);
    return {
      buf,
      outsideUntouched: () => {
        const outside = [...buf.subarray(0, PAD), ...buf.subarray(PAD + bytes.byteLength)];
        assert.ok(
          outside.every((b) => b === 0xee),
          "decodeOwnedRange wrote outside its range",
        );
      },
    };
  }

  /**
   * The same result (or both fail) from decode and from decodeOwnedRange of the text in a
   * larger buffer: decode's errors are INVALID_ARGUMENT.
   */
  function same(text: string): void {
    const bytes = new TextEncoder().encode(text);
    const { buf, outsideUntouched } = owned(bytes);
    const decodeOwned = () => decodeOwnedRange(buf, PAD, PAD + bytes.byteLength);
    let want: unknown;
    try {
      want = reference(bytes);
    } catch {
      assert.throws(() => codec.decode(bytes), /json decode failed/, `decode took ${text}`);
      assert.throws(decodeOwned, /json decode failed/, `decodeOwnedRange took ${text}`);
      outsideUntouched();
      return;
    }
    assert.deepStrictEqual(codec.decode(bytes), want, text);
    assert.deepStrictEqual(decodeOwned(), want, `decodeOwnedRange: ${text}`);
    outsideUntouched();
  }

  // Up to 900 bytes: most texts are over the 1 KiB from which the codec looks for byte arrays
  // in its own form before it parses the whole text.
  const b64 = fc
    .uint8Array({ maxLength: 900, size: "max" })
    .map((b) => Buffer.from(b).toString("base64"));
  /** Byte arrays as the codec writes them, and texts near that form that must not pass as it. */
  const bytesText = fc.oneof(
    b64.map((s) => `{"$bytes":"${s}"}`),
    b64.map((s) => `{"$bytes":"${s}"}`),
    b64.map((s) => `{ "$bytes": "${s}" }`),
    b64.map((s) => `{"$bytes":"${s.replace(/=+$/, "")}"}`),
    b64.map((s) => `{"$bytes":"${s}","x":1}`),
    b64.map((s) => `{"x":1,"$bytes":"${s}"}`),
    b64.map((s) => `{"\\u0024bytes":"${s}"}`),
    b64.map((s) => `{"$bytes":"${s.slice(0, 2)}\\u0041${s.slice(2)}"}`),
    b64.map((s) => `{"$bytes":"${s.slice(0, 3)}*${s.slice(3)}"}`),
    b64.map((s) => `{"$bytes":"${s.slice(0, 3)}é${s.slice(3)}"}`),
    b64.map((s) => `{"$bytes":"${s.slice(0, 3)}\n${s.slice(3)}"}`),
    b64.map((s) => `{"$bytes":"${s.slice(0, 4)}==${s.slice(4)}"}`),
    b64.map((s) => `{"$bytes":"${s.replace(/\+/g, "-").replace(/\//g, "_")}"}`),
    fc.constant('{"$bytes":7}'),
    fc.constant('{"$bytes":"AAAA"'),
    fc.constant('{"$bytes":"AA"}'),
  );
  const other = fc.oneof(
    fc.jsonValue({ maxDepth: 1 }).map((v) => JSON.stringify(v)),
    fc.constant('"$bytes"'),
    fc.constant('"say \\"hi\\""'),
    fc.constant('{"$bytes":"0"}'),
  );
  const text: fc.Arbitrary<string> = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small" },
      bytesText,
      other,
      fc.array(tie("node"), { maxLength: 4 }).map((xs) => `[${xs.join(",")}]`),
      fc
        .array(fc.tuple(fc.constantFrom("a", "data", "b c", "é"), tie("node")), { maxLength: 4 })
        .map((kv) => `{${kv.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`),
    ),
  })).node as fc.Arbitrary<string>;

  test("any text decodes as JSON.parse with the $bytes reviver would (or fails as it does)", () => {
    fc.assert(
      fc.property(text, (t) => same(t)),
      // Texts of kilobytes: a failure is reported as found, not shrunk for minutes.
      { seed: 20261207, numRuns: 1000, endOnFailure: true },
    );
  });

  test("a file chunk as the codec writes it, and texts one step from that form", () => {
    const data = Uint8Array.from({ length: 65_536 }, (_, i) => (i * 7) & 0xff);
    const chunk = { name: "dir/file.bin", offsetBytes: 65_536, data, crc32c: 1, last: false };
    const wire = Buffer.from(codec.encode(chunk)).toString("utf8");
    assert.deepStrictEqual(codec.decode(codec.encode(chunk)), chunk);
    const at = wire.indexOf('"$bytes":"') + 10;
    for (const t of [
      wire,
      wire.replace('"name":"dir/file.bin"', '"name":"dir\\/file.bin"'), // an escape elsewhere
      wire.replace('"name":"dir/file.bin"', '"name":"$bytes"'), // "$bytes" as a value
      `${wire.slice(0, at + 100)}\t${wire.slice(at + 100)}`, // a raw tab in the base64
      `${wire.slice(0, at + 100)}!${wire.slice(at + 101)}`, // a character outside the alphabet
      wire.replace(/"\}/, '"} '), // whitespace after the object
      wire.replace(/"\}/, '" }'), // whitespace inside it
      wire.replace(/"\}/, '","x":1}'), // another key after it
      wire.replace('"last":false', '"last":{"x":1,"$bytes":"AAAA"}'), // "$bytes" with another key
      wire.replace('"last":false', '"last":{"$bytes":"AAAA","x":1}'),
      wire.replace('"last":false', '"last":{"$bytes":5}'), // a "$bytes" that is not a string
      wire.replace('"last":false', '"last":{"\\u0024bytes":"AAAA"}'), // the key escaped
      `[${wire},${wire}]`,
      wire.slice(0, -1), // cut short
    ])
      same(t);
  });

  test("decodeOwnedRange decodes a chunk's base64 into the bytes it was given", () => {
    const data = Uint8Array.from({ length: 65_536 }, (_, i) => (i * 13) & 0xff);
    const chunk = { name: "a.bin", offsetBytes: 0, data, crc32c: 7, last: true, sha256: data };
    const { buf, outsideUntouched } = owned(codec.encode(chunk));
    const got = decodeOwnedRange(buf, PAD, buf.byteLength - PAD) as typeof chunk;
    assert.deepStrictEqual(got, chunk);
    // Both arrays are views of `buf` inside the range: no array of their own.
    for (const a of [got.data, got.sha256]) {
      assert.equal(a.buffer, buf.buffer);
      assert.ok(a.byteOffset >= PAD && a.byteOffset + a.byteLength <= buf.byteLength - PAD);
    }
    outsideUntouched();
    // decode leaves its input alone and gives arrays of their own.
    const wire = codec.encode(chunk);
    const before = Buffer.from(wire);
    const plain = codec.decode(wire) as typeof chunk;
    assert.notEqual(plain.data.buffer, wire.buffer);
    assert.deepStrictEqual(Buffer.from(wire), before);
  });

  test("decodeOwnedRange refuses a range outside its bytes as a decode failure", () => {
    const bytes = codec.encode({ a: 1 });
    for (const [start, end] of [
      [-1, bytes.byteLength],
      [0, bytes.byteLength + 1],
      [3, 2],
    ] as const)
      assert.throws(
        () => decodeOwnedRange(bytes, start, end),
        (e: NearwireError) => e.code === Code.InvalidArgument && e.reason === "decode-failed",
      );
  });
});
