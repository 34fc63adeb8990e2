/** The bench messages to and from the flatc-generated tables of schema/bench.fbs. */
import type { FlatbuffersTable, FlatbuffersVerifier } from "@nearwire/codec-flatbuffers";
import { Code, NearwireError } from "@nearwire/core";
import type { Builder, ByteBuffer } from "flatbuffers";
import { Encoding } from "flatbuffers";
import * as fb from "./generated/bench-fbs.js";
import type { Chunk, Metric, Request, Tick } from "./messages.js";

/*
 * Bench messages <-> the flatc-generated tables of schema/bench.fbs. Decode returns plain
 * objects read through the generated accessors; `body` and `data` are views of the input.
 * Absent strings decode as "", absent vectors as empty, absent scalars as 0 (the FlatBuffers
 * default, which is also what the builder leaves out), exactly as protobuf does.
 */

const utf8 = new TextDecoder("utf-8", { fatal: true });
const EMPTY = new Uint8Array(0);

function str(bytes: string | Uint8Array | null): string {
  if (bytes === null) return "";
  if (typeof bytes === "string") return bytes;
  try {
    return utf8.decode(bytes);
  } catch (cause) {
    throw new NearwireError(Code.InvalidArgument, "flatbuffers string is not UTF-8", {
      cause,
      reason: "decode-failed",
    });
  }
}

function u53(v: bigint): number {
  if (v > 9007199254740991n) {
    throw new NearwireError(Code.InvalidArgument, `flatbuffers u64 ${v} above 2^53-1`, {
      reason: "decode-failed",
    });
  }
  return Number(v);
}

const tickTable: FlatbuffersTable<Tick> = {
  encode: (b: Builder, v: Tick) =>
    fb.Tick.createTick(
      b,
      v.symbolId,
      BigInt(v.seq),
      BigInt(v.timestampNs),
      v.bid,
      v.ask,
      v.bidSize,
      v.askSize,
      v.flags,
    ),
  decode(bb: ByteBuffer): Tick {
    const t = fb.Tick.getRootAsTick(bb);
    return {
      symbolId: t.symbolId(),
      seq: u53(t.seq()),
      timestampNs: u53(t.timestampNs()),
      bid: t.bid(),
      ask: t.ask(),
      bidSize: t.bidSize(),
      askSize: t.askSize(),
      flags: t.flags(),
    };
  },
  verify(v: FlatbuffersVerifier, t: number) {
    v.field(t, 4, 4);
    v.field(t, 6, 8);
    v.field(t, 8, 8);
    v.field(t, 10, 8);
    v.field(t, 12, 8);
    v.field(t, 14, 4);
    v.field(t, 16, 4);
    v.field(t, 18, 4);
  },
};

const requestTable: FlatbuffersTable<Request> = {
  encode(b: Builder, v: Request) {
    const id = b.createString(v.id);
    const traceId = b.createString(v.traceId);
    const method = b.createString(v.method);
    const user = b.createString(v.user);
    const tagOffsets = v.tags.map((t) => b.createString(t));
    const tags = fb.Request.createTagsVector(b, tagOffsets);
    const body = b.createByteVector(v.body);
    return fb.Request.createRequest(
      b,
      id,
      traceId,
      method,
      user,
      tags,
      BigInt(v.deadlineMs),
      v.priority,
      body,
    );
  },
  decode(bb: ByteBuffer): Request {
    const r = fb.Request.getRootAsRequest(bb);
    const n = r.tagsLength();
    const tags: string[] = new Array(n);
    for (let i = 0; i < n; i++) tags[i] = str(r.tags(i, Encoding.UTF8_BYTES));
    return {
      id: str(r.id(Encoding.UTF8_BYTES)),
      traceId: str(r.traceId(Encoding.UTF8_BYTES)),
      method: str(r.method(Encoding.UTF8_BYTES)),
      user: str(r.user(Encoding.UTF8_BYTES)),
      tags,
      deadlineMs: u53(r.deadlineMs()),
      priority: r.priority(),
      body: r.bodyArray() ?? EMPTY,
    };
  },
  verify(v: FlatbuffersVerifier, t: number) {
    v.string(t, 4);
    v.string(t, 6);
    v.string(t, 8);
    v.string(t, 10);
    v.vectorOfStrings(t, 12);
    v.field(t, 14, 8);
    v.field(t, 16, 4);
    v.vector(t, 18, 1);
  },
};

const metricTable: FlatbuffersTable<Metric> = {
  encode(b: Builder, v: Metric) {
    const name = b.createString(v.name);
    const keys = Object.keys(v.tags);
    const tagOffsets = keys.map((k) =>
      fb.Tag.createTag(b, b.createString(k), b.createString(v.tags[k] as string)),
    );
    const tags = fb.Metric.createTagsVector(b, tagOffsets);
    return fb.Metric.createMetric(b, BigInt(v.timestampMs), name, v.value, tags);
  },
  decode(bb: ByteBuffer): Metric {
    const m = fb.Metric.getRootAsMetric(bb);
    const tags: Record<string, string> = {};
    const tag = new fb.Tag();
    const n = m.tagsLength();
    for (let i = 0; i < n; i++) {
      m.tags(i, tag);
      const key = str(tag.key(Encoding.UTF8_BYTES));
      if (key === "__proto__")
        throw new NearwireError(Code.InvalidArgument, "tag key __proto__", {
          reason: "decode-failed",
        });
      tags[key] = str(tag.value(Encoding.UTF8_BYTES));
    }
    return {
      timestampMs: u53(m.timestampMs()),
      name: str(m.name(Encoding.UTF8_BYTES)),
      value: m.value(),
      tags,
    };
  },
  verify(v: FlatbuffersVerifier, t: number) {
    v.field(t, 4, 8);
    v.string(t, 6);
    v.field(t, 8, 8);
    v.vectorOfTables(t, 10, (vv, tag) => {
      vv.string(tag, 4);
      vv.string(tag, 6);
    });
  },
};

const chunkTable: FlatbuffersTable<Chunk> = {
  encode(b: Builder, v: Chunk) {
    const data = b.createByteVector(v.data);
    return fb.Chunk.createChunk(b, v.seq, v.last, data);
  },
  decode(bb: ByteBuffer): Chunk {
    const c = fb.Chunk.getRootAsChunk(bb);
    return { seq: c.seq(), last: c.last(), data: c.dataArray() ?? EMPTY };
  },
  verify(v: FlatbuffersVerifier, t: number) {
    v.field(t, 4, 4);
    v.field(t, 6, 1);
    v.vector(t, 8, 1);
  },
};

/** The FlatBuffers tables of the four bench messages, keyed by full message name. */
export const benchFlatbuffersTables: Record<string, FlatbuffersTable<unknown>> = {
  "nearwire.bench.Tick": tickTable as FlatbuffersTable<unknown>,
  "nearwire.bench.Request": requestTable as FlatbuffersTable<unknown>,
  "nearwire.bench.Metric": metricTable as FlatbuffersTable<unknown>,
  "nearwire.bench.Chunk": chunkTable as FlatbuffersTable<unknown>,
};
