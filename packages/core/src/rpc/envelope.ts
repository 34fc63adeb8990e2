/**
 * RPC envelope: the payloads of frame types 0x10–0x16 (PROTOCOL.md §5). All integers are
 * big-endian, strings UTF-8.
 *
 * ```
 * REQUEST  0x10  callId u32 | flags u8 | timeoutMs u32 | methodLen u8 | method
 *                [metadata if flags&HAS_METADATA] [message = rest if flags&HAS_MESSAGE]
 * MESSAGE  0x11  callId u32 | message = rest
 * END      0x12  callId u32
 * STATUS   0x13  callId u32 | flags u8 | code u8 | detailLen u16 | detail
 *                [trailers if flags&HAS_METADATA] [message = rest if flags&HAS_MESSAGE]
 * CANCEL   0x14  callId u32 | code u8
 * CREDIT   0x15  callId u32 | credit u32
 * BATCH    0x16  callId u32 | (length u32 | message)+   (only to a peer that announced it)
 *
 * metadata = count u16 | count × (keyLen u16 | key | valueLen u32 | value)
 * flags: 0x01 END_STREAM (REQUEST only: no MESSAGE follows), 0x02 HAS_MESSAGE, 0x04 HAS_METADATA
 * ```
 */
import { Code, isCode } from "../code.js";
import { NearwireError } from "../nearwire-error.js";
import type { Metadata } from "../transport.js";

export const FLAG_END_STREAM = 0x01;
export const FLAG_HAS_MESSAGE = 0x02;
export const FLAG_HAS_METADATA = 0x04;

/**
 * The STATUS trailer that carries a NearwireError's `reason` (PROTOCOL.md §5.6): the client
 * takes it out of the trailers and sets the error's `reason` from it.
 */
export const REASON_TRAILER = "nearwire-reason";

/**
 * The STATUS trailer with the server's codec name, sent with a request it cannot decode
 * (PROTOCOL.md §5.6): a client whose codec has another name says "client speaks X, server Y".
 */
export const CODEC_TRAILER = "nearwire-codec";

/** Messages each side may send on a call before it receives CREDIT (PROTOCOL.md §5.4). */
export const INITIAL_CREDIT = 32;

/** Bytes of a REQUEST before its method path: callId, flags, timeoutMs, methodLen. */
export const REQUEST_HEAD_BYTES = 10;
/** Bytes of a MESSAGE before its message: callId. */
export const MESSAGE_HEAD_BYTES = 4;
/** Bytes of a STATUS before its detail: callId, flags, code, detailLen. */
export const STATUS_HEAD_BYTES = 8;
/** Bytes of an END payload: callId. */
export const END_BYTES = 4;
/** Bytes of a CANCEL payload: callId, code. */
export const CANCEL_BYTES = 5;
/** Bytes of a CREDIT payload: callId, credit. */
export const CREDIT_BYTES = 8;
/** Bytes of a BATCH before its first entry: callId. */
export const BATCH_HEAD_BYTES = 4;
/** Bytes of a BATCH entry before its message: the message's length. */
export const BATCH_ENTRY_HEAD_BYTES = 4;

/**
 * Checks a BATCH payload's layout (PROTOCOL.md §5.2): a call id, then at least one entry
 * (u32 length, message), the entries filling the payload exactly. Returns the number of
 * messages; throws INTERNAL `protocol-violation` otherwise, before any message is delivered.
 */
export function checkBatch(p: Uint8Array): number {
  const end = p.byteLength;
  let at = BATCH_HEAD_BYTES;
  if (end < at + BATCH_ENTRY_HEAD_BYTES) throw malformed("BATCH");
  let count = 0;
  while (at < end) {
    if (end - at < BATCH_ENTRY_HEAD_BYTES) throw malformed("BATCH");
    const n = readU32(p, at);
    at += BATCH_ENTRY_HEAD_BYTES;
    if (n > end - at) throw malformed("BATCH");
    at += n;
    count++;
  }
  return count;
}

/**
 * Calls `each(frame, start, end, transient)` for every message of a BATCH payload that
 * {@link checkBatch} accepted, in order. A payload only valid during the frame callback
 * (`transient`: a ring record) whose messages the codec keeps views of (`keepsViews`) is copied
 * once first, instead of once per message; `each` then gets the copy, not transient.
 */
export function eachBatchMessage(
  p: Uint8Array,
  transient: boolean,
  keepsViews: boolean,
  each: (frame: Uint8Array, start: number, end: number, transient: boolean) => void,
): void {
  let frame = p;
  let isTransient = transient;
  if (transient && keepsViews) {
    frame = p.slice();
    isTransient = false;
  }
  const end = frame.byteLength;
  for (let at = BATCH_HEAD_BYTES; at < end; ) {
    const n = readU32(frame, at);
    at += BATCH_ENTRY_HEAD_BYTES;
    each(frame, at, at + n, isTransient);
    at += n;
  }
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

/** Writes `n` as a big-endian u32 at `out[at…]`. */
export function putU32(out: Uint8Array, at: number, n: number): void {
  out[at] = n >>> 24;
  out[at + 1] = n >>> 16;
  out[at + 2] = n >>> 8;
  out[at + 3] = n;
}

/** A DataView over exactly `bytes`. */
export function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** INTERNAL `protocol-violation`: a `what` frame that breaks its layout. */
export function malformed(what: string): NearwireError {
  return new NearwireError(Code.Internal, `malformed ${what} frame`, {
    reason: "protocol-violation",
  });
}

function encodedMetadata(md: Metadata | undefined): Uint8Array[] | undefined {
  if (md === undefined) return undefined;
  const keys = Object.keys(md);
  if (keys.length === 0) return undefined;
  const parts: Uint8Array[] = [];
  // Keys go lower-case (PROTOCOL.md §5.3), as gRPC and HTTP/2 have them.
  for (const key of keys) {
    parts.push(utf8.encode(key.toLowerCase()), utf8.encode(md[key] ?? ""));
  }
  return parts;
}

function metadataSize(parts: Uint8Array[]): number {
  let n = 2;
  for (let i = 0; i < parts.length; i += 2)
    n += 2 + (parts[i]?.byteLength ?? 0) + 4 + (parts[i + 1]?.byteLength ?? 0);
  return n;
}

function writeMetadata(out: Uint8Array, dv: DataView, at: number, parts: Uint8Array[]): number {
  let o = at;
  dv.setUint16(o, parts.length / 2);
  o += 2;
  for (let i = 0; i < parts.length; i += 2) {
    const k = parts[i] as Uint8Array;
    const v = parts[i + 1] as Uint8Array;
    if (k.byteLength > 0xffff)
      throw new NearwireError(Code.InvalidArgument, `metadata key ${k.byteLength} B > 65535`);
    dv.setUint16(o, k.byteLength);
    out.set(k, o + 2);
    o += 2 + k.byteLength;
    dv.setUint32(o, v.byteLength);
    out.set(v, o + 4);
    o += 4 + v.byteLength;
  }
  return o;
}

/** Reads a metadata block at `bytes[at…]`; returns it and the offset after it. */
export function readMetadata(
  bytes: Uint8Array,
  dv: DataView,
  at: number,
  what: string,
): [Metadata, number] {
  let o = at;
  if (o + 2 > bytes.byteLength) throw malformed(what);
  const count = dv.getUint16(o);
  o += 2;
  const md: Metadata = {};
  for (let i = 0; i < count; i++) {
    if (o + 2 > bytes.byteLength) throw malformed(what);
    const kl = dv.getUint16(o);
    o += 2;
    if (o + kl + 4 > bytes.byteLength) throw malformed(what);
    const key = decodeText(bytes.subarray(o, o + kl), what);
    o += kl;
    const vl = dv.getUint32(o);
    o += 4;
    if (o + vl > bytes.byteLength) throw malformed(what);
    md[key] = decodeText(bytes.subarray(o, o + vl), what);
    o += vl;
  }
  return [md, o];
}

function decodeText(bytes: Uint8Array, what: string): string {
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    throw malformed(what);
  }
}

/** A decoded REQUEST. `message` is a view of the frame payload. */
export interface RequestFrame {
  callId: number;
  flags: number;
  timeoutMs: number;
  method: string;
  metadata: Metadata | undefined;
  message: Uint8Array | undefined;
}

/** Writes the fixed part of a REQUEST (`10 + methodBytes.byteLength` bytes) at `out[at…]`. */
export function writeRequestHead(
  out: Uint8Array,
  at: number,
  callId: number,
  flags: number,
  timeoutMs: number,
  methodBytes: Uint8Array,
): void {
  putU32(out, at, callId);
  out[at + 4] = flags;
  putU32(out, at + 5, timeoutMs);
  out[at + 9] = methodBytes.byteLength;
  out.set(methodBytes, at + 10);
}

/** Writes the 8-byte head of an OK STATUS whose message follows inline (no detail, no trailers). */
export function writeOkStatusHead(out: Uint8Array, at: number, callId: number): void {
  putU32(out, at, callId);
  out[at + 4] = FLAG_HAS_MESSAGE;
  out[at + 5] = 0;
  out[at + 6] = 0;
  out[at + 7] = 0;
}

/** Writes the 4-byte head of a MESSAGE (its call id). */
export function writeMessageHead(out: Uint8Array, at: number, callId: number): void {
  putU32(out, at, callId);
}

/** Encodes a REQUEST payload; `methodBytes` is the UTF-8 method path (≤ 255 B). */
export function encodeRequest(
  callId: number,
  flags: number,
  timeoutMs: number,
  methodBytes: Uint8Array,
  metadata: Metadata | undefined,
  message: Uint8Array | undefined,
): Uint8Array {
  const md = encodedMetadata(metadata);
  let f = flags & FLAG_END_STREAM;
  if (md !== undefined) f |= FLAG_HAS_METADATA;
  if (message !== undefined) f |= FLAG_HAS_MESSAGE;
  const head = 10 + methodBytes.byteLength;
  const size = head + (md === undefined ? 0 : metadataSize(md)) + (message?.byteLength ?? 0);
  const out = new Uint8Array(size);
  writeRequestHead(out, 0, callId, f, timeoutMs, methodBytes);
  let o = head;
  if (md !== undefined) o = writeMetadata(out, view(out), o, md);
  if (message !== undefined) out.set(message, o);
  return out;
}

/** Decodes a REQUEST payload; throws INTERNAL `protocol-violation` when malformed. */
export function decodeRequest(p: Uint8Array): RequestFrame {
  if (p.byteLength < 10) throw malformed("REQUEST");
  const flags = p[4] as number;
  const ml = p[9] as number;
  if (10 + ml > p.byteLength || ml === 0) throw malformed("REQUEST");
  const method = latin1OrUtf8(p, 10, ml, "REQUEST");
  let o = 10 + ml;
  let metadata: Metadata | undefined;
  if (flags & FLAG_HAS_METADATA) [metadata, o] = readMetadata(p, view(p), o, "REQUEST");
  let message: Uint8Array | undefined;
  if (flags & FLAG_HAS_MESSAGE) message = p.subarray(o);
  else if (o !== p.byteLength) throw malformed("REQUEST");
  return { callId: readU32(p, 0), flags, timeoutMs: readU32(p, 5), method, metadata, message };
}

/** Reads `len` bytes at `p[at…]` as a UTF-8 string (an ASCII fast path); throws when not UTF-8. */
export function latin1OrUtf8(p: Uint8Array, at: number, len: number, what: string): string {
  let ascii = true;
  for (let i = at; i < at + len; i++) if ((p[i] as number) > 0x7f) ascii = false;
  if (!ascii) return decodeText(p.subarray(at, at + len), what);
  let s = "";
  for (let i = at; i < at + len; i++) s += String.fromCharCode(p[i] as number);
  return s;
}

/** Encodes a MESSAGE payload. */
export function encodeMessage(callId: number, message: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + message.byteLength);
  writeMessageHead(out, 0, callId);
  out.set(message, 4);
  return out;
}

/** Encodes an END, or any payload that is only a call id. */
export function encodeCallId(callId: number): Uint8Array {
  const out = new Uint8Array(4);
  view(out).setUint32(0, callId);
  return out;
}

/** Reads a big-endian u32 at `p[at…]` (the caller checked the length). */
export function readU32(p: Uint8Array, at: number): number {
  return (
    (((p[at] as number) << 24) |
      ((p[at + 1] as number) << 16) |
      ((p[at + 2] as number) << 8) |
      (p[at + 3] as number)) >>>
    0
  );
}

/** Reads the call id at the start of any RPC payload; throws when shorter than 4 bytes. */
export function readCallId(p: Uint8Array, what: string): number {
  if (p.byteLength < 4) throw malformed(what);
  return readU32(p, 0);
}

/** A decoded STATUS. */
export interface StatusFrame {
  callId: number;
  code: Code;
  detail: string;
  trailers: Metadata | undefined;
  message: Uint8Array | undefined;
}

/** Encodes a STATUS payload. `message` only with code OK (the last, or only, response). */
export function encodeStatus(
  callId: number,
  code: Code,
  detail: string,
  trailers: Metadata | undefined,
  message: Uint8Array | undefined,
): Uint8Array {
  let d = utf8.encode(detail);
  if (d.byteLength > 0xffff) d = d.subarray(0, 0xffff);
  const md = encodedMetadata(trailers);
  let flags = 0;
  if (md !== undefined) flags |= FLAG_HAS_METADATA;
  if (message !== undefined) flags |= FLAG_HAS_MESSAGE;
  const head = 8 + d.byteLength;
  const out = new Uint8Array(
    head + (md === undefined ? 0 : metadataSize(md)) + (message?.byteLength ?? 0),
  );
  putU32(out, 0, callId);
  out[4] = flags;
  out[5] = code;
  out[6] = d.byteLength >>> 8;
  out[7] = d.byteLength;
  out.set(d, 8);
  let o = head;
  if (md !== undefined) o = writeMetadata(out, view(out), o, md);
  if (message !== undefined) out.set(message, o);
  return out;
}

/** Decodes a STATUS payload; throws INTERNAL `protocol-violation` when malformed. */
export function decodeStatus(p: Uint8Array): StatusFrame {
  if (p.byteLength < 8) throw malformed("STATUS");
  const flags = p[4] as number;
  const code = p[5] as number;
  if (!isCode(code)) throw malformed("STATUS");
  const dl = ((p[6] as number) << 8) | (p[7] as number);
  if (8 + dl > p.byteLength) throw malformed("STATUS");
  const detail = dl === 0 ? "" : decodeText(p.subarray(8, 8 + dl), "STATUS");
  let o = 8 + dl;
  let trailers: Metadata | undefined;
  if (flags & FLAG_HAS_METADATA) [trailers, o] = readMetadata(p, view(p), o, "STATUS");
  let message: Uint8Array | undefined;
  if (flags & FLAG_HAS_MESSAGE) message = p.subarray(o);
  else if (o !== p.byteLength) throw malformed("STATUS");
  return { callId: readU32(p, 0), code, detail, trailers, message };
}

/** Encodes a CANCEL payload. */
export function encodeCancel(callId: number, code: Code): Uint8Array {
  const out = new Uint8Array(5);
  view(out).setUint32(0, callId);
  out[4] = code;
  return out;
}

/**
 * Decodes a CANCEL payload into its code. Any code byte is accepted (PROTOCOL.md §5.5): 0 and
 * values above 16 read as CANCELLED; only a payload that is not 5 bytes is malformed.
 */
export function decodeCancel(p: Uint8Array): { callId: number; code: Code } {
  if (p.byteLength !== CANCEL_BYTES) throw malformed("CANCEL");
  const code = p[4] as number;
  return {
    callId: readCallId(p, "CANCEL"),
    code: code === 0 || !isCode(code) ? Code.Canceled : code,
  };
}

/** Encodes a CREDIT payload. */
export function encodeCredit(callId: number, credit: number): Uint8Array {
  const out = new Uint8Array(8);
  const dv = view(out);
  dv.setUint32(0, callId);
  dv.setUint32(4, credit);
  return out;
}

/** Decodes a CREDIT payload. */
export function decodeCredit(p: Uint8Array): { callId: number; credit: number } {
  if (p.byteLength !== 8) throw malformed("CREDIT");
  return { callId: readCallId(p, "CREDIT"), credit: view(p).getUint32(4) };
}
