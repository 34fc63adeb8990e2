/**
 * Canonical form of a decoded bench message, so values decoded by different codecs compare equal.
 */
import type { Chunk, Metric, Request, Tick } from "./messages.js";

function plainBytes(b: Uint8Array): Uint8Array {
  return Object.getPrototypeOf(b) === Uint8Array.prototype
    ? b
    : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

function plainTags(tags: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(tags)) out[key] = tags[key] as string;
  return out;
}

/**
 * Turns a decoded value of any codec into the plain shape of its TypeScript type, so that values
 * from different codecs compare with `assert.deepStrictEqual`. What it normalizes: protobufjs
 * message classes (absent fields read from the prototype) become plain objects; `Buffer` views
 * become `Uint8Array` views; maps become plain objects. It does not touch numbers: `-0`, `NaN`
 * and precision are compared as decoded.
 */
export const canonical = {
  tick(v: Tick): Tick {
    return {
      symbolId: v.symbolId,
      seq: v.seq,
      timestampNs: v.timestampNs,
      bid: v.bid,
      ask: v.ask,
      bidSize: v.bidSize,
      askSize: v.askSize,
      flags: v.flags,
    };
  },
  request(v: Request): Request {
    return {
      id: v.id,
      traceId: v.traceId,
      method: v.method,
      user: v.user,
      tags: [...v.tags],
      deadlineMs: v.deadlineMs,
      priority: v.priority,
      body: plainBytes(v.body),
    };
  },
  metric(v: Metric): Metric {
    return { timestampMs: v.timestampMs, name: v.name, value: v.value, tags: plainTags(v.tags) };
  },
  chunk(v: Chunk): Chunk {
    return { seq: v.seq, last: v.last, data: plainBytes(v.data) };
  },
};
