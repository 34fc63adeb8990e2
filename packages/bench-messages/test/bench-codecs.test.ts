import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FlatbuffersVerifier } from "@nearwire/codec-flatbuffers";
import type { MessageCodec, MessageType } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import fc from "fast-check";
import { ByteBuffer } from "flatbuffers";
import { arbitraries } from "../src/arbitraries.js";
import {
  benchCodecs,
  benchFlatbuffersTables,
  ChunkType,
  canonical,
  MetricType,
  makeChunk,
  RequestType,
  sampleMessages,
  TickType,
} from "../src/index.js";

type Key = "tick" | "request" | "metric" | "chunk";
const types: Record<Key, MessageType<unknown>> = {
  tick: TickType,
  request: RequestType,
  metric: MetricType,
  chunk: ChunkType,
};
const keys = Object.keys(types) as Key[];
const codecNames = Object.keys(benchCodecs) as (keyof typeof benchCodecs)[];
const SEED = 0x5eed;

function codecOf(name: keyof typeof benchCodecs, key: Key): MessageCodec<unknown> {
  return benchCodecs[name].forType(types[key]);
}

const canon = (key: Key, v: unknown): unknown => (canonical[key] as (v: unknown) => unknown)(v);

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

/** Decodes `bytes`: a value, or INVALID_ARGUMENT decode-failed; anything else fails the test. */
function tryDecode(codec: MessageCodec<unknown>, bytes: Uint8Array): "ok" | "failed" {
  try {
    codec.decode(bytes);
    return "ok";
  } catch (err) {
    assert.ok(err instanceof NearwireError, `not a NearwireError: ${String(err)}`);
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.reason, "decode-failed");
    return "failed";
  }
}

/**
 * Formats that reject every strict prefix of a valid encoding. Protobuf cannot (a cut at a field
 * boundary is a valid shorter message); FlatBuffers accepts a cut that drops only trailing
 * alignment padding, and then decodes the full value.
 */
const prefixStrict = new Set(["json", "msgpack", "raw"]);
/** Formats whose decoders reject nearly all random input (schema-less ones accept what parses). */
const randomStrict = new Set(["flatbuffers", "raw"]);

test("sample sizes are representative", () => {
  assert.equal(codecOf("raw", "tick").encode(sampleMessages.tick).byteLength, 48);
  const req = codecOf("raw", "request").encode(sampleMessages.request).byteLength;
  assert.ok(req > 200 && req < 320, `raw request ${req} B`);
  assert.equal(Object.keys(sampleMessages.metric.tags).length, 5);
  assert.equal(sampleMessages.chunk.data.byteLength, 64 * 1024);
  const c = makeChunk(100, 3);
  assert.equal(c.data.byteLength, 100);
  assert.equal(c.seq, 3);
  assert.equal(makeChunk(10).seq, 0);
});

for (const name of codecNames) {
  describe(`${name}`, () => {
    test("every message type resolves; unknown types are NOT_FOUND", () => {
      assert.equal(benchCodecs[name].name, name);
      for (const key of keys) assert.ok(codecOf(name, key));
      if (name === "json" || name === "msgpack") return; // schema-less: every type name resolves
      assert.throws(
        () => benchCodecs[name].forType({ name: "nearwire.bench.Nope" }),
        (e: unknown) => e instanceof NearwireError && e.code === Code.NotFound,
      );
    });

    for (const key of keys) {
      test(`${key}: samples and edge values round-trip`, () => {
        const codec = codecOf(name, key);
        assert.deepStrictEqual(
          canon(key, codec.decode(codec.encode(sampleMessages[key]))),
          sampleMessages[key],
        );
        const edges: Record<Key, unknown[]> = {
          tick: [
            {
              symbolId: 0,
              seq: 0,
              timestampNs: 0,
              bid: 0,
              ask: 0,
              bidSize: 0,
              askSize: 0,
              flags: 0,
            },
            {
              symbolId: 0xffffffff,
              seq: 2 ** 53 - 1,
              timestampNs: 2 ** 53 - 1,
              bid: Number.MAX_VALUE,
              ask: Number.MIN_VALUE,
              bidSize: 0xffffffff,
              askSize: 1,
              flags: 0xffffffff,
            },
          ],
          request: [
            {
              id: "",
              traceId: "",
              method: "",
              user: "",
              tags: [],
              deadlineMs: 0,
              priority: 0,
              body: new Uint8Array(0),
            },
            {
              id: "ünïcødé 😀𝄞",
              traceId: "日本語",
              method: "\u0000",
              user: "a".repeat(1000),
              tags: ["", "😀"],
              deadlineMs: 2 ** 53 - 1,
              priority: 0xffffffff,
              body: new Uint8Array(300).fill(255),
            },
          ],
          metric: [
            { timestampMs: 0, name: "", value: -1.5e-300, tags: {} },
            {
              timestampMs: 2 ** 53 - 1,
              name: "😀",
              value: -Number.MAX_VALUE,
              tags: { "": "", ключ: "значение 😀" },
            },
          ],
          chunk: [
            makeChunk(0),
            { ...makeChunk(1 << 20, 0xffffffff), last: true },
            makeChunk(64, 1),
          ],
        };
        for (const v of edges[key])
          assert.deepStrictEqual(canon(key, codec.decode(codec.encode(v))), v);
      });

      test(`${key}: property decode(encode(x)) == x`, () => {
        const codec = codecOf(name, key);
        fc.assert(
          fc.property(arbitraries[key] as fc.Arbitrary<unknown>, (v) => {
            assert.deepStrictEqual(canon(key, codec.decode(codec.encode(v))), v);
          }),
          { seed: SEED, numRuns: key === "chunk" ? 40 : 120 },
        );
      });

      test(`${key}: encodeInto matches encode, -1 when out of room`, () => {
        const codec = codecOf(name, key);
        if (codec.encodeInto === undefined) return assert.equal(name, "json");
        const expected = codec.encode(sampleMessages[key]);
        const dest = new Uint8Array(expected.byteLength + 7).fill(0xee);
        assert.equal(codec.encodeInto(sampleMessages[key], dest, 7), expected.byteLength);
        assert.deepStrictEqual(dest.subarray(7), expected);
        assert.ok(dest.subarray(0, 7).every((b) => b === 0xee));
        assert.equal(
          codec.encodeInto(sampleMessages[key], new Uint8Array(expected.byteLength - 1), 0),
          -1,
        );
        assert.deepStrictEqual(codec.encode(sampleMessages[key]), expected);
      });

      test(`${key}: truncated, random and other codecs' bytes`, () => {
        const codec = codecOf(name, key);
        const value = key === "chunk" ? makeChunk(200, 5) : sampleMessages[key];
        const full = codec.encode(value);
        let rejected = 0;
        for (let n = 0; n < full.byteLength; n++) {
          const prefix = full.subarray(0, n);
          if (tryDecode(codec, prefix) === "failed") rejected++;
          else if (name === "flatbuffers") {
            // Cutting only trailing alignment padding loses nothing: the value must be intact.
            assert.deepStrictEqual(
              canon(key, codec.decode(prefix)),
              value,
              `prefix ${n} decoded a wrong value`,
            );
          } else if (prefixStrict.has(name))
            assert.fail(`${name} accepted a ${n} B prefix of ${key}`);
        }
        assert.ok(
          rejected > full.byteLength / 2,
          `${rejected} of ${full.byteLength} prefixes rejected`,
        );
        let randomRejected = 0;
        for (let i = 0; i < 500; i++)
          if (tryDecode(codec, randomBytes(i + 1, 1 + (i % 80))) === "failed") randomRejected++;
        if (randomStrict.has(name))
          assert.ok(randomRejected >= 495, `${randomRejected} of 500 random inputs rejected`);
        for (const other of codecNames) {
          if (other === name) continue;
          const foreign = codecOf(other, key).encode(value);
          const result = tryDecode(codec, foreign);
          if (result === "ok" && randomStrict.has(name)) {
            assert.fail(`${name} accepted ${other} bytes of ${key}`);
          }
        }
        assert.deepStrictEqual(canon(key, codec.decode(full)), value, "still decodes good input");
      });
    }
  });
}

test("floats beyond the shared domain, per format: raw and protobuf keep -0, NaN, ±Infinity", () => {
  const specials = [-0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
  const expect: Record<string, (d: number) => number> = {
    raw: (d) => d,
    protobuf: (d) => d,
    msgpack: (d) => (Object.is(d, -0) ? 0 : d),
    flatbuffers: (d) => (Object.is(d, -0) ? 0 : d),
  };
  for (const [name, f] of Object.entries(expect)) {
    const codec = codecOf(name as keyof typeof benchCodecs, "tick");
    for (const d of specials) {
      const v = { ...sampleMessages.tick, bid: d };
      assert.ok(
        Object.is((codec.decode(codec.encode(v)) as { bid: number }).bid, f(d)),
        `${name} ${d}`,
      );
    }
  }
});

test("decodesInPlace is true exactly where decoded bytes are views of the input", () => {
  for (const name of codecNames) {
    for (const key of ["request", "chunk"] as const) {
      const codec = codecOf(name, key);
      const bytes = codec.encode(sampleMessages[key]);
      const decoded = codec.decode(bytes) as { body?: Uint8Array; data?: Uint8Array };
      const field = (decoded.body ?? decoded.data) as Uint8Array;
      assert.equal(field.buffer === bytes.buffer, codec.decodesInPlace, `${name} ${key}`);
    }
  }
});

test("u64 above 2^53-1 on the wire fails with decode-failed (raw, flatbuffers, protobuf)", () => {
  const raw = codecOf("raw", "tick").encode(sampleMessages.tick);
  new DataView(raw.buffer).setUint32(20, 0x200000, true);
  assert.equal(tryDecode(codecOf("raw", "tick"), raw), "failed");
  const pb = codecOf("protobuf", "tick").encode({
    ...sampleMessages.tick,
    seq: "18446744073709551615" as unknown as number,
  });
  assert.equal(tryDecode(codecOf("protobuf", "tick"), pb), "failed");
});

test("raw rejects invalid UTF-8, chunk flags other than 0/1 and trailing bytes", () => {
  const req = codecOf("raw", "request").encode({ ...sampleMessages.request, id: "é" });
  req[16] = 0xff;
  assert.equal(tryDecode(codecOf("raw", "request"), req), "failed");
  const chunk = codecOf("raw", "chunk").encode(makeChunk(4));
  chunk[4] = 2;
  assert.equal(tryDecode(codecOf("raw", "chunk"), chunk), "failed");
  const tick = codecOf("raw", "tick").encode(sampleMessages.tick);
  const longer = new Uint8Array(49);
  longer.set(tick);
  assert.equal(tryDecode(codecOf("raw", "tick"), longer), "failed");
});

test("flatbuffers bench tables: corrupted buffers are rejected or read in bounds", () => {
  let seed = 777;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };
  for (const key of keys) {
    const table = benchFlatbuffersTables[types[key].name];
    assert.ok(table?.verify);
    const full = codecOf("flatbuffers", key).encode(
      key === "chunk" ? makeChunk(64) : sampleMessages[key],
    );
    for (let i = 0; i < 1500; i++) {
      const bytes = full.slice();
      for (let k = 0; k <= i % 3; k++) bytes[next() % bytes.length] = next() & 0xff;
      let verified = false;
      try {
        const v = new FlatbuffersVerifier(bytes);
        table.verify(v, v.rootTable());
        verified = true;
      } catch (err) {
        assert.ok(err instanceof NearwireError && err.reason === "decode-failed", String(err));
      }
      if (!verified) continue;
      const bb = new ByteBuffer(bytes);
      const reads: number[] = [];
      for (const m of [
        "readUint8",
        "readInt8",
        "readUint16",
        "readInt16",
        "readInt32",
        "readUint32",
        "readFloat64",
        "readUint64",
      ] as const) {
        const orig = bb[m].bind(bb) as (o: number) => unknown;
        const size = m.endsWith("8") ? 1 : m.endsWith("16") ? 2 : m.endsWith("32") ? 4 : 8;
        (bb as unknown as Record<string, unknown>)[m] = (o: number) => {
          if (o < 0 || o + size > bytes.byteLength) reads.push(o);
          return orig(o);
        };
      }
      try {
        table.decode(bb);
      } catch (err) {
        assert.ok(err instanceof NearwireError && err.reason === "decode-failed", String(err));
      }
      assert.deepStrictEqual(reads, [], `${key}: out-of-bounds read after verify`);
    }
  }
});
