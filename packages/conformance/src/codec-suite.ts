/**
 * codecSuite(): the tests every codec passes (round trips, property tests, truncation, garbage).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Codec, MessageCodec, MessageType } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import fc from "fast-check";
import { seededBytes } from "./seeded.js";

/**
 * What a format does with a strict prefix of a valid encoding.
 * - `"reject"`: every prefix fails with `decode-failed` (msgpack, JSON, raw).
 * - `"field-boundary"`: a cut at a field boundary is a valid shorter message, so a prefix fails
 *   or decodes to a value other than the full one (protobuf).
 * - `"padding"`: a cut that drops only trailing alignment padding decodes the full value; every
 *   other prefix fails (FlatBuffers).
 *
 * In the last two, more than half of the prefixes must still fail.
 */
export type Truncation = "reject" | "field-boundary" | "padding";

/** One message type the suite checks, with its values. */
export interface CodecSuiteType<T> {
  /** The type to pass to `codec.forType`. */
  type: MessageType<T>;
  /** Prefix of this type's test names. Default `type.name`. */
  label?: string;
  /** Values that must round-trip (`canonical(decode(encode(v)))` deep-equals `v`); at least one. */
  values: T[];
  /** The value the prefix and foreign-bytes checks encode. Default `values[0]`. */
  sample?: T;
  /** Maps a decoded value to the plain shape of `values` (e.g. copies out of generated classes). */
  canonical?: (decoded: T) => T;
  /** Seeded property test: every generated value must round-trip. */
  arbitrary?: fc.Arbitrary<T>;
  /** Runs of the property test. Default 300. */
  numRuns?: number;
  /** Picks a bytes field of a decoded `sample`: it must be a view of the input iff `decodesInPlace`. */
  bytesField?: (decoded: T) => Uint8Array;
  /** Bytes of other formats that may decode, or fail with `decode-failed` (nothing else). */
  foreign?: () => Uint8Array[];
  /** Values `encode` must reject with INTERNAL `encode-failed`, after which `sample` still round-trips. */
  unencodable?: unknown[];
}

/** Seeded random inputs fed to `decode`: lengths cycle from `minBytes` to `maxBytes`. */
export interface RandomBytesOptions {
  /** Number of inputs; seeds 1..count. */
  count: number;
  /** Shortest input in bytes. Default 1. */
  minBytes?: number;
  /** Longest input in bytes. */
  maxBytes: number;
  /** How many must fail with `decode-failed` (schema-less formats accept whatever parses). */
  minRejected: number;
}

/** Options of {@link codecSuite}. */
export interface CodecSuiteOptions {
  /** Shown as the test group. */
  name: string;
  /** The codec under test. */
  codec: Codec;
  /** The codec's expected `name`. */
  codecName: string;
  /** The expected `decodesInPlace` of every type's codec. Default: not checked. */
  decodesInPlace?: boolean;
  /** Message types and their values. */
  types: CodecSuiteType<unknown>[];
  /** Type names `forType` must refuse with NOT_FOUND. Default none (schema-less codecs). */
  unknownTypes?: string[];
  /** Whether `forType(...)` codecs must have `encodeInto` and `encodeIntoRange`. Default true. */
  encodeInto?: boolean;
  /**
   * Whether `encodeInto` must leave `dest` untouched when it returns -1. Default true; the
   * {@link MessageCodec} contract allows scribbling (raw writes fields before it runs out of room).
   */
  untouchedWhenOutOfRoom?: boolean;
  /** What the format does with truncated input. */
  truncation: Truncation;
  /** Seeded random bytes fed to every type's `decode`. */
  randomBytes: RandomBytesOptions;
  /** Foreign bytes (see {@link CodecSuiteType.foreign}) must all fail. Default false. */
  rejectsForeign?: boolean;
  /**
   * Wraps every decode of hostile input (prefixes, random and foreign bytes), e.g. to assert no
   * out-of-bounds read happened. Must return or rethrow what `decode` does.
   */
  guardDecode?: <T>(decode: () => T) => T;
  /** Seed of the property tests. Default 0x5eed. */
  seed?: number;
}

/** Asserts `err` is INVALID_ARGUMENT `decode-failed`. */
function assertDecodeFailed(err: unknown, context: string): void {
  assert.ok(err instanceof NearwireError, `${context}: not a NearwireError: ${String(err)}`);
  assert.equal(err.code, Code.InvalidArgument, context);
  assert.equal(err.reason, "decode-failed", context);
}

/**
 * Registers with `node:test` the checks every codec must pass, per message type: fixed values
 * and a seeded property round-trip, `encodeInto` at an offset and out of room, `encodeIntoRange`
 * inside a larger buffer (nothing written outside its range), truncated
 * prefixes, seeded random bytes and other formats' bytes (a value or `decode-failed`, nothing
 * else), zero-copy `bytes` fields iff `decodesInPlace`, and `encode-failed` on unencodable
 * values. Format-specific checks stay in the codec's own tests.
 *
 * ```ts
 * codecSuite({
 *   name: "msgpack codec",
 *   codec: createMsgpackCodec(),
 *   codecName: "msgpack",
 *   types: [{ type: messageType("test.Any"), values: [null, 1, "x"], arbitrary: fc.jsonValue() }],
 *   truncation: "reject",
 *   randomBytes: { count: 2000, maxBytes: 64, minRejected: 1000 },
 * });
 * ```
 */
export function codecSuite(options: CodecSuiteOptions): void {
  const { codec, types } = options;
  const guard = options.guardDecode ?? (<T>(decode: () => T): T => decode());
  const tryDecode = (c: MessageCodec<unknown>, bytes: Uint8Array, context: string) =>
    guard(() => {
      try {
        c.decode(bytes);
        return "ok" as const;
      } catch (err) {
        assertDecodeFailed(err, context);
        return "failed" as const;
      }
    });

  describe(options.name, () => {
    test("name, flags, NOT_FOUND for unknown types", () => {
      assert.equal(codec.name, options.codecName);
      for (const t of types) {
        const c = codec.forType(t.type);
        if (options.decodesInPlace !== undefined)
          assert.equal(c.decodesInPlace, options.decodesInPlace, `${t.type.name} decodesInPlace`);
      }
      for (const name of options.unknownTypes ?? []) {
        assert.throws(
          () => codec.forType({ name }),
          (e: unknown) => e instanceof NearwireError && e.code === Code.NotFound,
          name,
        );
      }
    });

    for (const t of types) {
      const label = t.label ?? t.type.name;
      const canon = t.canonical ?? ((v: unknown) => v);
      const sample = t.sample ?? t.values[0];
      const forType = () => codec.forType(t.type);

      test(`${label}: fixed values round-trip`, () => {
        const c = forType();
        assert.ok(t.values.length > 0);
        for (const [i, v] of t.values.entries())
          assert.deepStrictEqual(canon(c.decode(c.encode(v))), v, `value ${i}`);
      });

      const arbitrary = t.arbitrary;
      if (arbitrary !== undefined) {
        test(`${label}: property decode(encode(x)) deep-equals x`, () => {
          const c = forType();
          fc.assert(
            fc.property(arbitrary, (v) => {
              assert.deepStrictEqual(canon(c.decode(c.encode(v))), v);
            }),
            { seed: options.seed ?? 0x5eed, numRuns: t.numRuns ?? 300 },
          );
        });
      }

      test(`${label}: encodeInto writes at the offset, -1 when out of room`, () => {
        const c = forType();
        if (options.encodeInto === false) return assert.equal(c.encodeInto, undefined);
        assert.ok(c.encodeInto, "no encodeInto");
        const expected = c.encode(sample);
        const dest = new Uint8Array(expected.byteLength + 7).fill(0xee);
        assert.equal(c.encodeInto(sample, dest, 7), expected.byteLength);
        assert.deepStrictEqual(dest.subarray(7), expected);
        assert.ok(
          dest.subarray(0, 7).every((b) => b === 0xee),
          "bytes before the offset untouched",
        );
        const small = new Uint8Array(expected.byteLength - 1).fill(0xee);
        assert.equal(c.encodeInto(sample, small, 0), -1);
        if (options.untouchedWhenOutOfRoom !== false)
          assert.ok(
            small.every((b) => b === 0xee),
            "nothing written when out of room",
          );
        assert.equal(c.encodeInto(sample, dest, dest.byteLength + 1), -1, "offset past the end");
        assert.deepStrictEqual(c.encode(sample), expected, "writer state is clean afterwards");
      });

      test(`${label}: encodeIntoRange writes in [start, end) only, -1 when the range is too small`, () => {
        const c = forType();
        if (options.encodeInto === false) return assert.equal(c.encodeIntoRange, undefined);
        assert.ok(c.encodeIntoRange, "no encodeIntoRange");
        const expected = c.encode(sample);
        const n = expected.byteLength;
        // The range in the middle of a larger buffer: bytes on both sides must stay as they were.
        const dest = new Uint8Array(n + 20).fill(0xee);
        const outside = (what: string) =>
          assert.ok(
            dest.subarray(0, 7).every((b) => b === 0xee) &&
              dest.subarray(7 + n).every((b) => b === 0xee),
            what,
          );
        assert.equal(c.encodeIntoRange(sample, dest, 7, 7 + n), n);
        assert.deepStrictEqual(dest.subarray(7, 7 + n), expected);
        outside("bytes outside the range untouched");
        dest.fill(0xee);
        assert.equal(c.encodeIntoRange(sample, dest, 7, 7 + n - 1), -1, "one byte short");
        outside("nothing written past the range when out of room");
        if (options.untouchedWhenOutOfRoom !== false)
          assert.ok(
            dest.every((b) => b === 0xee),
            "nothing written when out of room",
          );
        assert.equal(c.encodeIntoRange(sample, dest, 7, dest.byteLength + 1), -1, "end past dest");
        assert.equal(c.encodeIntoRange(sample, dest, -1, n), -1, "negative start");
        assert.equal(c.encodeIntoRange(sample, dest, 9, 8), -1, "start after end");
        assert.equal(
          c.encodeIntoRange(sample, dest, 0, dest.byteLength),
          n,
          "the whole buffer as the range",
        );
        assert.deepStrictEqual(dest.subarray(0, n), expected);
        assert.deepStrictEqual(c.encode(sample), expected, "writer state is clean afterwards");
      });

      test(`${label}: truncated input (${options.truncation})`, () => {
        const c = forType();
        const full = c.encode(sample);
        let rejected = 0;
        for (let n = 0; n < full.byteLength; n++) {
          const prefix = full.subarray(0, n);
          if (tryDecode(c, prefix, `prefix ${n}`) === "failed") {
            rejected++;
            continue;
          }
          if (options.truncation === "reject") assert.fail(`accepted a ${n} B prefix`);
          const decoded = canon(c.decode(prefix));
          if (options.truncation === "padding")
            assert.deepStrictEqual(decoded, sample, `prefix ${n} decoded a wrong value`);
          else assert.notDeepStrictEqual(decoded, sample, `prefix ${n} decoded as the full value`);
        }
        assert.ok(
          rejected > full.byteLength / 2,
          `${rejected} of ${full.byteLength} prefixes rejected`,
        );
        assert.deepStrictEqual(canon(c.decode(full)), sample, "codec still decodes good input");
      });

      test(`${label}: seeded random bytes: a value or decode-failed`, () => {
        const c = forType();
        const { count, minBytes = 1, maxBytes, minRejected } = options.randomBytes;
        let rejected = 0;
        for (let i = 0; i < count; i++) {
          const bytes = seededBytes(i + 1, minBytes + (i % (maxBytes - minBytes + 1)));
          if (tryDecode(c, bytes, `seed ${i + 1}`) === "failed") rejected++;
        }
        assert.ok(rejected >= minRejected, `${rejected} of ${count} random inputs rejected`);
        assert.deepStrictEqual(canon(c.decode(c.encode(sample))), sample, "still decodes");
      });

      const foreign = t.foreign;
      if (foreign !== undefined) {
        test(`${label}: other formats' bytes: ${options.rejectsForeign ? "decode-failed" : "a value or decode-failed"}`, () => {
          const c = forType();
          const inputs = foreign();
          assert.ok(inputs.length > 0);
          for (const [i, bytes] of inputs.entries()) {
            const result = tryDecode(c, bytes, `foreign input ${i}`);
            if (options.rejectsForeign)
              assert.equal(result, "failed", `accepted foreign input ${i}`);
          }
        });
      }

      const bytesField = t.bytesField;
      if (bytesField !== undefined) {
        test(`${label}: bytes fields are views of the input iff decodesInPlace`, () => {
          const c = forType();
          const bytes = c.encode(sample);
          assert.equal(bytesField(c.decode(bytes)).buffer === bytes.buffer, c.decodesInPlace);
        });
      }

      const unencodable = t.unencodable;
      if (unencodable !== undefined) {
        test(`${label}: encode of an unencodable value throws INTERNAL encode-failed, then still works`, () => {
          const c = forType();
          for (const v of unencodable) {
            assert.throws(
              () => c.encode(v),
              (e: unknown) =>
                e instanceof NearwireError &&
                e.code === Code.Internal &&
                e.reason === "encode-failed",
            );
          }
          assert.deepStrictEqual(canon(c.decode(c.encode(sample))), sample);
        });
      }
    }
  });
}
