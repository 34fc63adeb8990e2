/**
 * The hand-written raw binary layouts of the bench messages (little-endian, no tags); drawn below.
 */
import type { Codec, MessageCodec } from "@nearwire/core";
import { Code, createCodec, NearwireError } from "@nearwire/core";
import type { Chunk, Metric, Request, Tick } from "./messages.js";

/*
 * The raw layouts: hand-written, little-endian, no tags, no versioning. "u64" is a JS number in
 * [0, 2^53-1] stored as u32 low word + u32 high word (high <= 0x1FFFFF). str and bytes are a u32
 * byte length followed by that many bytes (str: UTF-8). A message is exactly its fields: the
 * decoder rejects short input, lengths past the end, and trailing bytes.
 *
 * Tick (48 B)                       Request
 *  0 f64 bid                          0 u64 deadlineMs
 *  8 f64 ask                          8 u32 priority
 * 16 u64 seq                         12 str id, str traceId, str method, str user
 * 24 u64 timestampNs                  .. u32 tag count, then that many str
 * 32 u32 symbolId                     .. bytes body
 * 36 u32 bidSize
 * 40 u32 askSize                    Metric                   Chunk
 * 44 u32 flags                        0 u64 timestampMs        0 u32 seq
 *                                     8 f64 value              4 u32 flags (bit 0: last;
 *                                    16 str name                     other bits must be 0)
 *                                     .. u32 tag count,        8 bytes data
 *                                        then (str key, str value) each
 */

const TWO_POW_32 = 4294967296;
const MAX_HIGH = 0x1fffff;
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });
const EMPTY = new Uint8Array(0);

class OutOfRoom extends Error {}
/**
 * The one OutOfRoom thrown: `encodeInto` catches it and returns -1 (a send buffer's end is an
 * expected event, once per batch), so it carries no stack and costs no stack capture.
 */
const OUT_OF_ROOM = new OutOfRoom("out of room");

/**
 * Points a writer or reader at `bytes`. Called only when `bytes` is another array than the last
 * (encoding into the same send buffer or ring, or decoding from the same slab, skips it): the
 * `buffer` getter is slow on a typed array over an external buffer (a shared mapping), and
 * the DataView is made again only when the ArrayBuffer changed.
 */
function retarget(
  on: { bytes: Uint8Array; view: DataView; base: number },
  bytes: Uint8Array,
): void {
  on.bytes = bytes;
  const buffer = bytes.buffer;
  if (on.view.buffer !== buffer) on.view = new DataView(buffer);
  on.base = bytes.byteOffset;
}

/** Writes into `bytes` from `pos` up to `end`; throws OutOfRoom at `end`. */
class RawWriter {
  bytes: Uint8Array = EMPTY;
  /** A DataView over the whole ArrayBuffer of `bytes`, kept while the buffer stays the same. */
  view: DataView = new DataView(EMPTY.buffer);
  /** `bytes.byteOffset`: view offsets are `base + pos`. */
  base = 0;
  pos = 0;
  /** Nothing is written at or past this index of `bytes`. */
  end = 0;

  reset(bytes: Uint8Array, pos: number, end: number): void {
    if (bytes !== this.bytes) retarget(this, bytes);
    this.pos = pos;
    this.end = end;
  }
  room(n: number): void {
    if (this.pos + n > this.end) throw OUT_OF_ROOM;
  }
  u32(v: number): void {
    this.room(4);
    this.view.setUint32(this.base + this.pos, v, true);
    this.pos += 4;
  }
  u64(v: number): void {
    if (!Number.isSafeInteger(v) || v < 0)
      throw encodeFailed(`u64 field ${v} is not an integer in [0, 2^53-1]`);
    this.room(8);
    this.view.setUint32(this.base + this.pos, v >>> 0, true);
    this.view.setUint32(this.base + this.pos + 4, Math.floor(v / TWO_POW_32), true);
    this.pos += 8;
  }
  f64(v: number): void {
    this.room(8);
    this.view.setFloat64(this.base + this.pos, v, true);
    this.pos += 8;
  }
  str(s: string): void {
    const n = s.length;
    this.room(4 + n);
    const bytes = this.bytes;
    let p = this.pos + 4;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      bytes[p++] = c;
    }
    if (i < n) {
      const { read, written } = utf8Encoder.encodeInto(s.slice(i), bytes.subarray(p, this.end));
      if (read !== n - i) throw OUT_OF_ROOM;
      p += written;
    }
    this.view.setUint32(this.base + this.pos, p - this.pos - 4, true);
    this.pos = p;
  }
  bin(b: Uint8Array): void {
    this.room(4 + b.byteLength);
    this.view.setUint32(this.base + this.pos, b.byteLength, true);
    this.bytes.set(b, this.pos + 4);
    this.pos += 4 + b.byteLength;
  }
}

/**
 * Reads `bytes[start … limit)`; every read is bounds-checked and throws decode-failed (positions
 * in messages are relative to `start`). Integers are read from the bytes; the DataView is made
 * only for a float, since received frames are a new view each (a socket chunk's), and pointing a
 * DataView at one costs two `buffer` getters.
 */
class RawReader {
  bytes: Uint8Array = EMPTY;
  /** A DataView over the whole ArrayBuffer of `viewOf`, kept while the buffer stays the same. */
  view: DataView = new DataView(EMPTY.buffer);
  /** The array `view` and `base` were last pointed at. */
  viewOf: Uint8Array = EMPTY;
  /** `viewOf.byteOffset`: view offsets are `base + pos`. */
  base = 0;
  /** The input {@link bin} last made a view of, its ArrayBuffer and byte offset. */
  binOf: Uint8Array = EMPTY;
  binBuffer: ArrayBufferLike = EMPTY.buffer;
  binBase = 0;
  /** Where the message starts and ends in `bytes`; `pos` runs from `start` to `limit`. */
  start = 0;
  limit = 0;
  pos = 0;

  reset(bytes: Uint8Array, start: number, limit: number): this {
    this.bytes = bytes;
    this.start = start;
    this.limit = limit;
    this.pos = start;
    return this;
  }
  /** The DataView over `bytes` (view offsets are `base + pos`). */
  dataView(): DataView {
    if (this.viewOf !== this.bytes) {
      retarget(this, this.bytes);
      this.viewOf = this.bytes;
    }
    return this.view;
  }
  /** Little-endian u32 at `p` (in bounds: checked by the caller). */
  le32(p: number): number {
    const b = this.bytes;
    return (
      ((b[p] as number) |
        ((b[p + 1] as number) << 8) |
        ((b[p + 2] as number) << 16) |
        ((b[p + 3] as number) << 24)) >>>
      0
    );
  }
  need(n: number): void {
    if (n > this.limit - this.pos)
      throw decodeFailed(`${n} B needed at ${this.pos - this.start} of ${this.limit - this.start}`);
  }
  u32(): number {
    this.need(4);
    const v = this.le32(this.pos);
    this.pos += 4;
    return v;
  }
  u64(): number {
    this.need(8);
    const high = this.le32(this.pos + 4);
    if (high > MAX_HIGH) throw decodeFailed(`u64 at ${this.pos - this.start} above 2^53-1`);
    const v = high * TWO_POW_32 + this.le32(this.pos);
    this.pos += 8;
    return v;
  }
  f64(): number {
    this.need(8);
    const v = this.dataView().getFloat64(this.base + this.pos, true);
    this.pos += 8;
    return v;
  }
  str(): string {
    const n = this.u32();
    this.need(n);
    const start = this.pos;
    this.pos += n;
    const bytes = this.bytes;
    if (n <= 32) {
      let s = "";
      for (let i = start; i < start + n; i++) {
        const c = bytes[i] as number;
        if (c >= 0x80) return utf8(bytes, start, start + n, this.start);
        s += String.fromCharCode(c);
      }
      return s;
    }
    return utf8(bytes, start, start + n, this.start);
  }
  /**
   * The next length-prefixed bytes: a view of the input, no copy. The view is made from the
   * input's ArrayBuffer, read once per input: the messages of a BATCH frame are decoded from one
   * input, and `subarray`, which reads `buffer` again on every call, costs about twice as much
   * (the codec bench, `pnpm --filter @nearwire/bench-messages bench`, shows it).
   */
  bin(): Uint8Array {
    const n = this.u32();
    this.need(n);
    const bytes = this.bytes;
    if (this.binOf !== bytes) {
      this.binOf = bytes;
      this.binBuffer = bytes.buffer;
      this.binBase = bytes.byteOffset;
    }
    const b = new Uint8Array(this.binBuffer, this.binBase + this.pos, n);
    this.pos += n;
    return b;
  }
  count(minBytesEach: number): number {
    const n = this.u32();
    if (n > (this.limit - this.pos) / minBytesEach)
      throw decodeFailed(`count ${n} at ${this.pos - this.start - 4} past the end`);
    return n;
  }
  end(): void {
    if (this.pos !== this.limit) throw decodeFailed(`${this.limit - this.pos} trailing bytes`);
  }
}

/** UTF-8 of `bytes[start … end)`; an error names the position relative to the message's `origin`. */
function utf8(bytes: Uint8Array, start: number, end: number, origin: number): string {
  try {
    return utf8Decoder.decode(bytes.subarray(start, end));
  } catch (cause) {
    throw decodeFailed(`invalid UTF-8 at ${start - origin}`, cause);
  }
}

function decodeFailed(message: string, cause?: unknown): NearwireError {
  return new NearwireError(Code.InvalidArgument, `raw decode failed: ${message}`, {
    reason: "decode-failed",
    ...(cause === undefined ? {} : { cause }),
  });
}

function encodeFailed(message: string): NearwireError {
  return new NearwireError(Code.Internal, `raw encode failed: ${message}`, {
    reason: "encode-failed",
  });
}

interface Layout<T> {
  /** Bytes `value` needs at most (exact for fixed layouts). */
  maxBytes(value: T): number;
  write(w: RawWriter, value: T): void;
  read(r: RawReader): T;
  inPlace: boolean;
  /** True when `maxBytes` is exact: `encode` then writes into a new array of that size. */
  exact: boolean;
  /**
   * Optional: `encodeIntoRange` for this layout written out in one function, the same bytes as
   * `write` (the writer `w` only lends its DataView of `dest`). For a layout on the hot path of
   * a stream: `write`'s calls of the writer's methods are not inlined there, and cost a 64-byte
   * Chunk about twice what the written-out function does.
   */
  encodeRange?(w: RawWriter, value: T, dest: Uint8Array, start: number, end: number): number;
}

const tick: Layout<Tick> = {
  inPlace: false,
  exact: true,
  maxBytes: () => 48,
  write(w, v) {
    w.room(48);
    w.f64(v.bid);
    w.f64(v.ask);
    w.u64(v.seq);
    w.u64(v.timestampNs);
    w.u32(v.symbolId);
    w.u32(v.bidSize);
    w.u32(v.askSize);
    w.u32(v.flags);
  },
  read(r) {
    r.need(48);
    const bid = r.f64();
    const ask = r.f64();
    const seq = r.u64();
    const timestampNs = r.u64();
    return {
      symbolId: r.u32(),
      seq,
      timestampNs,
      bid,
      ask,
      bidSize: r.u32(),
      askSize: r.u32(),
      flags: r.u32(),
    };
  },
};

const strMax = (s: string) => 4 + 3 * s.length;

const request: Layout<Request> = {
  inPlace: true,
  exact: false,
  maxBytes(v) {
    let n =
      12 +
      strMax(v.id) +
      strMax(v.traceId) +
      strMax(v.method) +
      strMax(v.user) +
      4 +
      4 +
      v.body.byteLength;
    for (const t of v.tags) n += strMax(t);
    return n;
  },
  write(w, v) {
    w.u64(v.deadlineMs);
    w.u32(v.priority);
    w.str(v.id);
    w.str(v.traceId);
    w.str(v.method);
    w.str(v.user);
    w.u32(v.tags.length);
    for (const t of v.tags) w.str(t);
    w.bin(v.body);
  },
  read(r) {
    const deadlineMs = r.u64();
    const priority = r.u32();
    const id = r.str();
    const traceId = r.str();
    const method = r.str();
    const user = r.str();
    const n = r.count(4);
    const tags: string[] = new Array(n);
    for (let i = 0; i < n; i++) tags[i] = r.str();
    return { id, traceId, method, user, tags, deadlineMs, priority, body: r.bin() };
  },
};

const metric: Layout<Metric> = {
  inPlace: false,
  exact: false,
  maxBytes(v) {
    let n = 16 + strMax(v.name) + 4;
    for (const key of Object.keys(v.tags)) n += strMax(key) + strMax(v.tags[key] as string);
    return n;
  },
  write(w, v) {
    w.u64(v.timestampMs);
    w.f64(v.value);
    w.str(v.name);
    const keys = Object.keys(v.tags);
    w.u32(keys.length);
    for (const key of keys) {
      w.str(key);
      w.str(v.tags[key] as string);
    }
  },
  read(r) {
    const timestampMs = r.u64();
    const value = r.f64();
    const name = r.str();
    const n = r.count(8);
    const tags: Record<string, string> = {};
    for (let i = 0; i < n; i++) {
      const key = r.str();
      if (key === "__proto__") throw decodeFailed("tag key __proto__");
      tags[key] = r.str();
    }
    return { timestampMs, name, value, tags };
  },
};

const chunk: Layout<Chunk> = {
  inPlace: true,
  exact: true,
  maxBytes: (v) => 12 + v.data.byteLength,
  encodeRange(w, v, dest, start, end) {
    const data = v.data;
    const n = data.byteLength;
    if (end - start < 12 + n) return -1;
    if (dest !== w.bytes) retarget(w, dest);
    const view = w.view;
    const at = w.base + start;
    view.setUint32(at, v.seq, true);
    view.setUint32(at + 4, v.last ? 1 : 0, true);
    view.setUint32(at + 8, n, true);
    dest.set(data, start + 12);
    return 12 + n;
  },
  write(w, v) {
    w.u32(v.seq);
    w.u32(v.last ? 1 : 0);
    w.bin(v.data);
  },
  read(r) {
    const seq = r.u32();
    const flags = r.u32();
    if (flags > 1) throw decodeFailed(`chunk flags ${flags}`);
    return { seq, last: flags === 1, data: r.bin() };
  },
};

const writer = new RawWriter();
/** One reader, reset per decode (decoding never nests). */
const reader = new RawReader();
let scratch = new Uint8Array(4096);

function messageCodec<T>(layout: Layout<T>): MessageCodec<T> {
  function encodeIntoRange(value: T, dest: Uint8Array, start: number, end: number): number {
    if (!(start >= 0 && start <= end && end <= dest.byteLength)) return -1;
    if (layout.encodeRange !== undefined)
      return layout.encodeRange(writer, value, dest, start, end);
    // An exact layout knows its size: too little room is -1 without writing anything.
    if (layout.exact && layout.maxBytes(value) > end - start) return -1;
    writer.reset(dest, start, end);
    try {
      layout.write(writer, value);
      return writer.pos - start;
    } catch (cause) {
      if (cause === OUT_OF_ROOM) return -1;
      throw cause instanceof NearwireError ? cause : encodeFailed(String(cause));
    }
    // The writer keeps its view of `dest` until the next call: encoding into the same send
    // buffer or ring again then costs no new DataView.
  }
  return {
    decodesInPlace: layout.inPlace,
    encode(value) {
      const max = layout.maxBytes(value);
      if (layout.exact) {
        const out = new Uint8Array(max);
        writer.reset(out, 0, max);
        try {
          layout.write(writer, value);
        } catch (cause) {
          throw cause instanceof NearwireError ? cause : encodeFailed(String(cause));
        } finally {
          writer.reset(EMPTY, 0, 0);
        }
        return out;
      }
      if (scratch.byteLength < max) scratch = new Uint8Array(Math.max(max, scratch.byteLength * 2));
      writer.reset(scratch, 0, scratch.byteLength);
      try {
        layout.write(writer, value);
      } catch (cause) {
        throw cause instanceof NearwireError ? cause : encodeFailed(String(cause));
      }
      return scratch.slice(0, writer.pos);
    },
    encodeInto: (value, dest, offset) => encodeIntoRange(value, dest, offset, dest.byteLength),
    encodeIntoRange,
    decode(bytes) {
      const r = reader.reset(bytes, 0, bytes.byteLength);
      const value = layout.read(r);
      r.end();
      return value;
    },
    decodeRange(bytes, start, end) {
      if (!(start >= 0 && start <= end && end <= bytes.byteLength))
        throw decodeFailed(`range ${start}…${end} outside ${bytes.byteLength} bytes`);
      const r = reader.reset(bytes, start, end);
      const value = layout.read(r);
      r.end();
      return value;
    },
  };
}

/**
 * The raw codec (name `raw`): the hand-written DataView layouts drawn at the top of this file,
 * the fastest encoding a person writes by hand, for the four bench messages. `encodeInto` writes
 * straight into the destination. `decodesInPlace` is true for Request and Chunk (`body` and
 * `data` are views of the input) and false for Tick and Metric. Decode throws INVALID_ARGUMENT
 * `decode-failed` on short input, lengths past the end, trailing bytes, invalid UTF-8, a u64
 * above 2^53-1, chunk flags other than 0/1 and the tag key `__proto__`; encode throws INTERNAL
 * `encode-failed` for a u64 field outside [0, 2^53-1] (u32 fields wrap as DataView does).
 */
export const rawCodec: Codec = createCodec(
  "raw",
  Object.assign(Object.create(null) as Record<string, MessageCodec<unknown>>, {
    "nearwire.bench.Tick": messageCodec(tick),
    "nearwire.bench.Request": messageCodec(request),
    "nearwire.bench.Metric": messageCodec(metric),
    "nearwire.bench.Chunk": messageCodec(chunk),
  }) as Record<string, MessageCodec<unknown>>,
);
