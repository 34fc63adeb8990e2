/** fast-check arbitraries of the four bench messages, over the value domain every codec carries. */
import fc from "fast-check";
import type { Chunk, Metric, Request, Tick } from "./messages.js";

/*
 * Value domain shared by every codec (json, msgpack, protobuf, flatbuffers, raw): u32 in
 * [0, 2^32-1]; "u64" in [0, 2^53-1]; doubles finite and never -0 (JSON has no NaN, Infinity or
 * -0, and MessagePack and FlatBuffers turn -0 into 0); strings of any Unicode code points
 * (astral included, no lone surrogates, which UTF-8 cannot carry); tag keys never `__proto__`.
 */
const u32 = fc.oneof(fc.constantFrom(0, 1, 0xffffffff), fc.integer({ min: 0, max: 0xffffffff }));
const u53 = fc.oneof(fc.constantFrom(0, 2 ** 32, 2 ** 53 - 1), fc.maxSafeNat());
const f64 = fc
  .oneof(
    fc.constantFrom(0, Number.MAX_VALUE, Number.MIN_VALUE, -Number.MAX_VALUE),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  )
  .map((d) => (Object.is(d, -0) ? 0 : d));
const text = fc.oneof(
  fc.constantFrom("", "😀", "日本語", "\u0000"),
  fc.string({ unit: "binary", maxLength: 40 }),
);
const key = text.filter((k) => k !== "__proto__");
const bigBytes = fc.integer({ min: 0, max: 1 << 20 }).map((n) => new Uint8Array(n).fill(n & 0xff));
const bytes = fc.oneof(
  { weight: 9, arbitrary: fc.uint8Array({ maxLength: 300 }) },
  { weight: 1, arbitrary: bigBytes },
);
const options = { noNullPrototype: true } as const;

/** fast-check arbitraries of the four bench messages over the domain every codec carries. */
export const arbitraries: {
  readonly tick: fc.Arbitrary<Tick>;
  readonly request: fc.Arbitrary<Request>;
  readonly metric: fc.Arbitrary<Metric>;
  readonly chunk: fc.Arbitrary<Chunk>;
} = {
  tick: fc.record(
    {
      symbolId: u32,
      seq: u53,
      timestampNs: u53,
      bid: f64,
      ask: f64,
      bidSize: u32,
      askSize: u32,
      flags: u32,
    },
    options,
  ),
  request: fc.record(
    {
      id: text,
      traceId: text,
      method: text,
      user: text,
      tags: fc.array(text, { maxLength: 8 }),
      deadlineMs: u53,
      priority: u32,
      body: fc.uint8Array({ maxLength: 300 }),
    },
    options,
  ),
  metric: fc.record(
    {
      timestampMs: u53,
      name: text,
      value: f64,
      tags: fc.dictionary(key, text, { maxKeys: 8, ...options }),
    },
    options,
  ),
  chunk: fc.record({ seq: u32, last: fc.boolean(), data: bytes }, options),
};
