import type { Codec, MessageCodec } from "@nearwire/core";
import { Code, createCodec, NearwireError } from "@nearwire/core";
import type {
  DownloadChunk,
  DownloadRequest,
  StatusReply,
  StatusRequest,
  UploadChunk,
  UploadReply,
} from "../service.js";

/*
 * The raw layouts of the transfer messages: little-endian, no tags, no versioning. i64 is a
 * JS safe integer (-1 means "none"/"unknown"); str and bytes are a u32 byte length followed by
 * the bytes (str: UTF-8); flags bits not listed must be 0. The decoder rejects short input,
 * lengths past the end and trailing bytes; decoded bytes fields are views of the input.
 *
 * StatusRequest     str name
 * StatusReply       i64 sizeBytes, i64 partialBytes, i64 partialSizeBytes,
 *                   u8 flags (bit 0 committed, bit 1 active)                        (25 B)
 * UploadChunk       i64 sizeBytes, i64 offsetBytes, u32 crc32c, u8 flags (bit 0 last),
 *                   str name, bytes sha256, bytes data
 * UploadReply       i64 sizeBytes, u8 flags (bit 0 committed), bytes sha256
 * DownloadRequest   i64 offsetBytes, u32 chunkBytes, str name, bytes prefixSha256
 * DownloadChunk     i64 offsetBytes, i64 sizeBytes, u32 crc32c, u8 flags (bit 0 last),
 *                   bytes sha256, bytes data
 */

const utf8Decoder = new TextDecoder("utf-8", { fatal: true });
const EMPTY = new Uint8Array(0);

function decodeFailed(message: string, cause?: unknown): NearwireError {
  return new NearwireError(Code.InvalidArgument, `raw transfer message: ${message}`, {
    reason: "decode-failed",
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Field values in order: numbers are written by their declared kind. */
type Field =
  | { i64: number }
  | { u32: number }
  | { u8: number }
  | { bytes: Uint8Array }
  | { str: string };

/** Strings as their UTF-8 bytes; the encoded size of the fields. */
function prepare(fields: Field[]): { parts: Field[]; bytes: number } {
  const parts = fields.map((f) => ("str" in f ? { bytes: Buffer.from(f.str, "utf8") } : f));
  let bytes = 0;
  for (const f of parts)
    bytes +=
      "i64" in f
        ? 8
        : "u32" in f
          ? 4
          : "u8" in f
            ? 1
            : 4 + (f as { bytes: Uint8Array }).bytes.byteLength;
  return { parts, bytes };
}

/** Writes prepared fields at `dest[pos …]` (the caller checked the room). */
function writeFields(parts: Field[], dest: Uint8Array, pos: number): void {
  const view = new DataView(dest.buffer, dest.byteOffset, dest.byteLength);
  for (const f of parts) {
    if ("i64" in f) {
      if (!Number.isSafeInteger(f.i64) || f.i64 < -1)
        throw new NearwireError(Code.Internal, `i64 field ${f.i64} is not -1 or a safe integer`, {
          reason: "encode-failed",
        });
      view.setBigInt64(pos, BigInt(f.i64), true);
      pos += 8;
    } else if ("u32" in f) {
      view.setUint32(pos, f.u32 >>> 0, true);
      pos += 4;
    } else if ("u8" in f) {
      view.setUint8(pos, f.u8);
      pos += 1;
    } else if ("bytes" in f) {
      view.setUint32(pos, f.bytes.byteLength, true);
      dest.set(f.bytes, pos + 4);
      pos += 4 + f.bytes.byteLength;
    }
  }
}

function encode(fields: Field[]): Uint8Array {
  const { parts, bytes } = prepare(fields);
  const out = new Uint8Array(bytes);
  writeFields(parts, out, 0);
  return out;
}

/**
 * Encodes into `dest[start … end)` (the engine's send slot: a 64 KiB chunk is copied once,
 * straight behind its frame head); -1 when it does not fit.
 */
function encodeIntoRange(fields: Field[], dest: Uint8Array, start: number, end: number): number {
  const { parts, bytes } = prepare(fields);
  if (start + bytes > end) return -1;
  writeFields(parts, dest, start);
  return bytes;
}

class Reader {
  private pos = 0;
  private readonly view: DataView;
  constructor(private readonly input: Uint8Array) {
    this.view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  }
  private need(n: number): void {
    if (this.pos + n > this.input.byteLength)
      throw decodeFailed(`${this.pos + n} B needed, ${this.input.byteLength} B given`);
  }
  i64(): number {
    this.need(8);
    const v = this.view.getBigInt64(this.pos, true);
    this.pos += 8;
    if (v < -1n || v > 9007199254740991n) throw decodeFailed(`i64 ${v} out of range`);
    return Number(v);
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  flags(allowed: number): number {
    this.need(1);
    const v = this.view.getUint8(this.pos);
    this.pos += 1;
    if ((v & ~allowed) !== 0) throw decodeFailed(`flags 0x${v.toString(16)} has unknown bits`);
    return v;
  }
  bytes(): Uint8Array {
    const n = this.u32();
    this.need(n);
    const v = this.input.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }
  str(): string {
    try {
      return utf8Decoder.decode(this.bytes());
    } catch (cause) {
      if (cause instanceof NearwireError) throw cause;
      throw decodeFailed("string is not UTF-8", cause);
    }
  }
  end<T>(value: T): T {
    if (this.pos !== this.input.byteLength)
      throw decodeFailed(`${this.input.byteLength - this.pos} trailing bytes`);
    return value;
  }
}

function layout<T>(enc: (v: T) => Field[], dec: (r: Reader) => T): MessageCodec<T> {
  return {
    decodesInPlace: true,
    encode: (v) => encode(enc(v)),
    encodeIntoRange: (v, dest, start, end) => encodeIntoRange(enc(v), dest, start, end),
    decode: (b) => dec(new Reader(b)),
  };
}

const statusRequest = layout<StatusRequest>(
  (v) => [{ str: v.name }],
  (r) => r.end({ name: r.str() }),
);
const statusReply = layout<StatusReply>(
  (v) => [
    { i64: v.sizeBytes },
    { i64: v.partialBytes },
    { i64: v.partialSizeBytes },
    { u8: (v.committed ? 1 : 0) | (v.active ? 2 : 0) },
  ],
  (r) => {
    const sizeBytes = r.i64();
    const partialBytes = r.i64();
    const partialSizeBytes = r.i64();
    const f = r.flags(3);
    return r.end({
      committed: (f & 1) !== 0,
      active: (f & 2) !== 0,
      sizeBytes,
      partialBytes,
      partialSizeBytes,
    });
  },
);
const uploadChunk = layout<UploadChunk>(
  (v) => [
    { i64: v.sizeBytes },
    { i64: v.offsetBytes },
    { u32: v.crc32c },
    { u8: v.last ? 1 : 0 },
    { str: v.name },
    { bytes: v.sha256 ?? EMPTY },
    { bytes: v.data },
  ],
  (r) => {
    const sizeBytes = r.i64();
    const offsetBytes = r.i64();
    const crc32c = r.u32();
    const last = r.flags(1) === 1;
    const name = r.str();
    const sha256 = r.bytes();
    const data = r.bytes();
    return r.end({ name, sizeBytes, offsetBytes, data, crc32c, last, sha256 });
  },
);
const uploadReply = layout<UploadReply>(
  (v) => [{ i64: v.sizeBytes }, { u8: v.committed ? 1 : 0 }, { bytes: v.sha256 ?? EMPTY }],
  (r) => {
    const sizeBytes = r.i64();
    const committed = r.flags(1) === 1;
    return r.end({ sizeBytes, committed, sha256: r.bytes() });
  },
);
const downloadRequest = layout<DownloadRequest>(
  (v) => [
    { i64: v.offsetBytes },
    { u32: v.chunkBytes },
    { str: v.name },
    { bytes: v.prefixSha256 ?? EMPTY },
  ],
  (r) => {
    const offsetBytes = r.i64();
    const chunkBytes = r.u32();
    const name = r.str();
    return r.end({ offsetBytes, chunkBytes, name, prefixSha256: r.bytes() });
  },
);
const downloadChunk = layout<DownloadChunk>(
  (v) => [
    { i64: v.offsetBytes },
    { i64: v.sizeBytes },
    { u32: v.crc32c },
    { u8: v.last ? 1 : 0 },
    { bytes: v.sha256 ?? EMPTY },
    { bytes: v.data },
  ],
  (r) => {
    const offsetBytes = r.i64();
    const sizeBytes = r.i64();
    const crc32c = r.u32();
    const last = r.flags(1) === 1;
    const sha256 = r.bytes();
    const data = r.bytes();
    return r.end({ offsetBytes, sizeBytes, crc32c, last, sha256, data });
  },
);

/** The raw (hand-written little-endian layout) codec of the transfer messages; layouts above. */
export const transferRawCodec: Codec = createCodec("raw", {
  "nearwire.transfer.StatusRequest": statusRequest as MessageCodec<unknown>,
  "nearwire.transfer.StatusReply": statusReply as MessageCodec<unknown>,
  "nearwire.transfer.UploadChunk": uploadChunk as MessageCodec<unknown>,
  "nearwire.transfer.UploadReply": uploadReply as MessageCodec<unknown>,
  "nearwire.transfer.DownloadRequest": downloadRequest as MessageCodec<unknown>,
  "nearwire.transfer.DownloadChunk": downloadChunk as MessageCodec<unknown>,
});
