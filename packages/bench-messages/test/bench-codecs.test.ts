import assert from "node:assert/strict";
import { test } from "node:test";
import { FlatbuffersVerifier } from "@nearwire/codec-flatbuffers";
import { codecSuite } from "@nearwire/conformance";
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

function codecOf(name: keyof typeof benchCodecs, key: Key): MessageCodec<unknown> {
  return benchCodecs[name].forType(types[key]);
}

const canon = (key: Key, v: unknown): unknown => (canonical[key] as (v: unknown) => unknown)(v);

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

/** Edge values per message type, beyond `sampleMessages`. */
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
  chunk: [makeChunk(0), { ...makeChunk(1 << 20, 0xffffffff), last: true }, makeChunk(64, 1)],
};

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

test("raw chunk: the written-out encodeIntoRange gives encode's bytes, into any buffer and range", () => {
  const c = codecOf("raw", "chunk");
  // A view at an offset of its ArrayBuffer (as a ring slot or a socket batch is), a Buffer, a
  // shared buffer: the encoder's DataView must follow each.
  const buffers = [
    new Uint8Array(new ArrayBuffer(5000), 100, 4096),
    Buffer.alloc(4096),
    new Uint8Array(new SharedArrayBuffer(4096)),
  ];
  for (let i = 0; i < 300; i++) {
    const chunk = { ...makeChunk((i * 37) % 1000, (i * 2654435761) >>> 0), last: i % 3 === 0 };
    for (let k = 0; k < chunk.data.length; k++) chunk.data[k] = (i + k * 13) & 0xff;
    const expected = c.encode(chunk);
    const dest = buffers[i % buffers.length] as Uint8Array;
    const start = i % 50;
    const n = c.encodeIntoRange?.(chunk, dest, start, dest.byteLength);
    assert.equal(n, expected.byteLength, `chunk ${i}`);
    assert.deepEqual(Uint8Array.from(dest.subarray(start, start + expected.byteLength)), expected);
    assert.deepEqual(c.decode(expected), chunk, `chunk ${i} round trip`);
  }
});

for (const name of codecNames) {
  const randomStrict = name === "flatbuffers" || name === "raw";
  codecSuite({
    name,
    codec: benchCodecs[name],
    codecName: name,
    types: keys.map((key) => ({
      type: types[key],
      label: key,
      values: [sampleMessages[key], ...edges[key]],
      sample: key === "chunk" ? makeChunk(200, 5) : sampleMessages[key],
      canonical: (v: unknown) => canon(key, v),
      arbitrary: arbitraries[key] as fc.Arbitrary<unknown>,
      numRuns: key === "chunk" ? 40 : 120,
      foreign: () =>
        codecNames
          .filter((other) => other !== name)
          .map((other) =>
            codecOf(other, key).encode(key === "chunk" ? makeChunk(200, 5) : sampleMessages[key]),
          ),
      ...(key === "request" || key === "chunk"
        ? {
            bytesField: (v: unknown) =>
              (v as { body?: Uint8Array; data?: Uint8Array }).body ??
              (v as { data: Uint8Array }).data,
          }
        : {}),
    })),
    // Schema-less codecs resolve every type name.
    unknownTypes: name === "json" || name === "msgpack" ? [] : ["nearwire.bench.Nope"],
    // raw writes fields into `dest` before it finds it out of room, json the text that fits
    // (both allowed by the contract).
    untouchedWhenOutOfRoom: name !== "raw" && name !== "json",
    /**
     * Protobuf cannot reject every prefix (a cut at a field boundary is a valid shorter
     * message); FlatBuffers accepts a cut that drops only trailing alignment padding, and then
     * decodes the full value.
     */
    truncation:
      name === "flatbuffers" ? "padding" : name === "protobuf" ? "field-boundary" : "reject",
    // Schema-less formats accept whatever parses; the others reject nearly all random input.
    randomBytes: { count: 500, maxBytes: 80, minRejected: randomStrict ? 495 : 0 },
    rejectsForeign: randomStrict,
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

/** What `decode` gives for `bytes`: the canonical value, or the decode error's message. */
function outcome(key: Key, run: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: canon(key, run()) };
  } catch (err) {
    assert.ok(err instanceof NearwireError, `not a NearwireError: ${String(err)}`);
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.reason, "decode-failed");
    return { error: err.message };
  }
}

test("raw decodeRange(bytes, start, end) reads a message inside a larger buffer exactly as decode of that range", () => {
  for (const key of keys) {
    const codec = codecOf("raw", key);
    const decodeRange = codec.decodeRange?.bind(codec);
    assert.ok(decodeRange, `raw ${key} has decodeRange`);
    fc.assert(
      fc.property(
        arbitraries[key] as fc.Arbitrary<unknown>,
        fc.nat(40),
        fc.nat(40),
        fc.integer({ min: -3, max: 3 }),
        fc.nat(),
        (value, before, after, cut, flip) => {
          const msg = codec.encode(value);
          // The message inside a buffer with bytes before and after it; the range may be cut
          // short or run into the next bytes, and one byte of it may be corrupted.
          const buf = new Uint8Array(before + msg.byteLength + after).fill(0xa5);
          buf.set(msg, before);
          const end = Math.min(buf.byteLength, Math.max(before, before + msg.byteLength + cut));
          if (flip % 3 === 0 && end > before) {
            const at = before + (flip % (end - before));
            buf[at] = (buf[at] as number) ^ 0xff;
          }
          assert.deepEqual(
            outcome(key, () => decodeRange(buf, before, end)),
            outcome(key, () => codec.decode(buf.slice(before, end))),
          );
        },
      ),
      { numRuns: 300 },
    );
    for (const [start, end] of [
      [-1, 2],
      [3, 2],
      [0, 1000],
    ] as const) {
      assert.equal(
        "error" in outcome(key, () => decodeRange(new Uint8Array(10), start, end)),
        true,
        `${key} range ${start}…${end}`,
      );
    }
  }
});

test("raw encodeInto and decodeRange stay right when the target array changes, or stays and its buffer is shared", () => {
  // The raw writer and reader keep their DataView while they are handed the same array, and
  // re-point it when another array comes (another buffer, or another view of the same buffer at
  // another byteOffset): every combination must write and read the bytes `encode` gives.
  const shared = new ArrayBuffer(256 * 1024);
  const targets = [
    new Uint8Array(shared, 0, 80 * 1024),
    new Uint8Array(shared, 1000, 80 * 1024),
    new Uint8Array(shared, 1000, 80 * 1024),
    new Uint8Array(70 * 1024),
    new Uint8Array(shared, 8, 66 * 1024),
  ];
  for (const key of keys) {
    const codec = codecOf("raw", key);
    const value = sampleMessages[key];
    const expected = codec.encode(value);
    // Each target twice in a row (the kept view), then the next one (a new view).
    for (const target of [...targets, ...targets].flatMap((t) => [t, t])) {
      const at = 16 + (target.byteOffset % 7);
      target.fill(0);
      const n = codec.encodeInto?.(value, target, at);
      assert.equal(
        n,
        expected.byteLength,
        `${key} into a ${target.byteLength} B view at ${target.byteOffset}`,
      );
      assert.deepEqual(target.slice(at, at + expected.byteLength), expected);
      assert.deepEqual(
        canon(key, codec.decodeRange?.(target, at, at + expected.byteLength)),
        canon(key, codec.decode(expected)),
      );
    }
  }
});
