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
 *
 * `@nearwire/core/protocol` publishes the flags, trailer names, INITIAL_CREDIT,
 * REQUEST_HEAD_BYTES and the payload encoders and decoders, listed there by name. The exports
 * marked `@internal` are the engine's own (offsets, in-place readers and writers, byte helpers):
 * core's modules import them from here, and no subpath publishes them.
 */
import { Code, isCode } from "../code.js";
import { NearwireError } from "../nearwire-error.js";
import type { Metadata } from "../transport.js";

/** REQUEST flag: the client sends no MESSAGE after it (unary, server-streaming). */
export const FLAG_END_STREAM = 0x01;
/** REQUEST and STATUS flag: a message fills the rest of the payload. */
export const FLAG_HAS_MESSAGE = 0x02;
/** REQUEST and STATUS flag: a metadata (or trailers) block follows the method or detail. */
export const FLAG_HAS_METADATA = 0x04;
/**
 * REQUEST flag: the client takes a HEADERS frame (0x17) on this call (PROTOCOL.md §5.2); a
 * server sends response headers only on calls that set it.
 */
export const FLAG_TAKES_HEADERS = 0x08;

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

/** Bytes of the call id that starts every RPC payload (u32). @internal */
export const CALL_ID_BYTES = 4;

/** Offset of a REQUEST's flags (u8). @internal */
export const REQUEST_FLAGS_AT = 4;
/** Offset of a REQUEST's timeoutMs (u32). @internal */
export const REQUEST_TIMEOUT_AT = 5;
/** Offset of a REQUEST's methodLen (u8); the path follows the head. @internal */
export const REQUEST_METHOD_LEN_AT = 9;
/** Offset of a STATUS's flags (u8). @internal */
export const STATUS_FLAGS_AT = 4;
/** Offset of a STATUS's code (u8). @internal */
export const STATUS_CODE_AT = 5;
/** Offset of a STATUS's detailLen (u16); the detail follows the head. @internal */
export const STATUS_DETAIL_LEN_AT = 6;
/** The code (u8) of a CANCEL, after the call id. @internal */
export const CANCEL_CODE_AT = 4;
/** The credit (u32) of a CREDIT, after the call id. @internal */
export const CREDIT_AT = 4;

/** Bytes of a MESSAGE before its message: callId. @internal */
export const MESSAGE_HEAD_BYTES = 4;
/** Bytes of a STATUS before its detail: callId, flags, code, detailLen. @internal */
export const STATUS_HEAD_BYTES = 8;
/** Bytes of an END payload: callId. @internal */
export const END_BYTES = 4;
/** Bytes of a CANCEL payload: callId, code. @internal */
export const CANCEL_BYTES = 5;
/** Bytes of a CREDIT payload: callId, credit. @internal */
export const CREDIT_BYTES = 8;
/** Bytes of a BATCH before its first entry: callId. @internal */
export const BATCH_HEAD_BYTES = 4;
/** Bytes of a BATCH entry before its message: the message's length. @internal */
export const BATCH_ENTRY_HEAD_BYTES = 4;

/**
 * Checks a BATCH payload's layout (PROTOCOL.md §5.2): a call id, then at least one entry
 * (u32 length, message), the entries filling the payload exactly. Returns the number of
 * messages; throws INTERNAL `protocol-violation` otherwise, before any message is delivered.
 * @internal
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
 * @internal
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

/** Writes `n` as a big-endian u32 at `out[at…]`. @internal */
export function putU32(out: Uint8Array, at: number, n: number): void {
  out[at] = n >>> 24;
  out[at + 1] = n >>> 16;
  out[at + 2] = n >>> 8;
  out[at + 3] = n;
}

/** A DataView over exactly `bytes`. @internal */
export function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** INTERNAL `protocol-violation`: a `what` frame that breaks its layout. @internal */
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

/** Reads a metadata block at `bytes[at…]`; returns it and the offset after it. @internal */
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

/**
 * Writes the fixed part of a REQUEST (`REQUEST_HEAD_BYTES + methodBytes.byteLength` bytes) at
 * `out[at…]`.
 * @internal
 */
export function writeRequestHead(
  out: Uint8Array,
  at: number,
  callId: number,
  flags: number,
  timeoutMs: number,
  methodBytes: Uint8Array,
): void {
  putU32(out, at, callId);
  out[at + REQUEST_FLAGS_AT] = flags;
  putU32(out, at + REQUEST_TIMEOUT_AT, timeoutMs);
  out[at + REQUEST_METHOD_LEN_AT] = methodBytes.byteLength;
  out.set(methodBytes, at + REQUEST_HEAD_BYTES);
}

/**
 * Writes the head of an OK STATUS whose message follows inline (no detail, no trailers).
 * @internal
 */
export function writeOkStatusHead(out: Uint8Array, at: number, callId: number): void {
  putU32(out, at, callId);
  out[at + STATUS_FLAGS_AT] = FLAG_HAS_MESSAGE;
  out[at + STATUS_CODE_AT] = Code.OK;
  out[at + STATUS_DETAIL_LEN_AT] = 0;
  out[at + STATUS_DETAIL_LEN_AT + 1] = 0;
}

/**
 * True when STATUS payload `p` is an OK STATUS with no detail and no trailers and its message
 * inline (what {@link writeOkStatusHead} starts): the message is `p[STATUS_HEAD_BYTES…]`.
 * @internal
 */
export function isOkStatusWithMessage(p: Uint8Array): boolean {
  return (
    p.byteLength >= STATUS_HEAD_BYTES &&
    p[STATUS_FLAGS_AT] === FLAG_HAS_MESSAGE &&
    p[STATUS_CODE_AT] === Code.OK &&
    p[STATUS_DETAIL_LEN_AT] === 0 &&
    p[STATUS_DETAIL_LEN_AT + 1] === 0
  );
}

/** Writes the head of a MESSAGE (its call id). @internal */
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
  let f = flags & (FLAG_END_STREAM | FLAG_TAKES_HEADERS);
  if (md !== undefined) f |= FLAG_HAS_METADATA;
  if (message !== undefined) f |= FLAG_HAS_MESSAGE;
  const head = REQUEST_HEAD_BYTES + methodBytes.byteLength;
  const size = head + (md === undefined ? 0 : metadataSize(md)) + (message?.byteLength ?? 0);
  const out = new Uint8Array(size);
  writeRequestHead(out, 0, callId, f, timeoutMs, methodBytes);
  let o = head;
  if (md !== undefined) o = writeMetadata(out, view(out), o, md);
  if (message !== undefined) out.set(message, o);
  return out;
}

/**
 * A REQUEST's fields as {@link decodeRequest} reads them in place: the method path and the
 * message stay in the payload, where these offsets say. A server reads every REQUEST into one
 * of these, so a call costs no frame object and no method string.
 */
export class RequestHead {
  callId = 0;
  flags = 0;
  timeoutMs = 0;
  /** Bytes of the method path (UTF-8, not checked here), at `payload[REQUEST_HEAD_BYTES…]`. */
  methodBytes = 0;
  metadata: Metadata | undefined = undefined;
  /** Where the message starts (it runs to the payload's end); the payload's length without one. */
  messageAt = 0;
}

/**
 * Decodes REQUEST payload `p` into `into` (a new {@link RequestHead} by default) and returns it;
 * throws INTERNAL `protocol-violation` when malformed.
 */
export function decodeRequest(p: Uint8Array, into = new RequestHead()): RequestHead {
  if (p.byteLength < REQUEST_HEAD_BYTES) throw malformed("REQUEST");
  const flags = p[REQUEST_FLAGS_AT] as number;
  const ml = p[REQUEST_METHOD_LEN_AT] as number;
  if (ml === 0 || REQUEST_HEAD_BYTES + ml > p.byteLength) throw malformed("REQUEST");
  let o = REQUEST_HEAD_BYTES + ml;
  let metadata: Metadata | undefined;
  if (flags & FLAG_HAS_METADATA) [metadata, o] = readMetadata(p, view(p), o, "REQUEST");
  if ((flags & FLAG_HAS_MESSAGE) === 0 && o !== p.byteLength) throw malformed("REQUEST");
  into.callId = readU32(p, 0);
  into.flags = flags;
  into.timeoutMs = readU32(p, REQUEST_TIMEOUT_AT);
  into.methodBytes = ml;
  into.metadata = metadata;
  into.messageAt = o;
  return into;
}

/**
 * Reads `len` bytes at `p[at…]` as a UTF-8 string (an ASCII fast path); throws when not UTF-8.
 * @internal
 */
export function latin1OrUtf8(p: Uint8Array, at: number, len: number, what: string): string {
  let ascii = true;
  for (let i = at; i < at + len; i++) if ((p[i] as number) > 0x7f) ascii = false;
  if (!ascii) return decodeText(p.subarray(at, at + len), what);
  let s = "";
  for (let i = at; i < at + len; i++) s += String.fromCharCode(p[i] as number);
  return s;
}

/** Encodes an END, or any payload that is only a call id. */
export function encodeCallId(callId: number): Uint8Array {
  const out = new Uint8Array(CALL_ID_BYTES);
  putU32(out, 0, callId);
  return out;
}

/** Reads a big-endian u32 at `p[at…]` (the caller checked the length). @internal */
export function readU32(p: Uint8Array, at: number): number {
  return (
    (((p[at] as number) << 24) |
      ((p[at + 1] as number) << 16) |
      ((p[at + 2] as number) << 8) |
      (p[at + 3] as number)) >>>
    0
  );
}

/** Reads the call id at the start of any RPC payload; throws when it is shorter than one. */
export function readCallId(p: Uint8Array, what: string): number {
  if (p.byteLength < CALL_ID_BYTES) throw malformed(what);
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

/**
 * Encodes a STATUS payload. `trailers` and `message` are optional; `message` only with code OK
 * (the last, or only, response).
 */
export function encodeStatus(
  callId: number,
  code: Code,
  detail: string,
  trailers?: Metadata,
  message?: Uint8Array,
): Uint8Array {
  let d = utf8.encode(detail);
  if (d.byteLength > 0xffff) d = d.subarray(0, 0xffff);
  const md = encodedMetadata(trailers);
  let flags = 0;
  if (md !== undefined) flags |= FLAG_HAS_METADATA;
  if (message !== undefined) flags |= FLAG_HAS_MESSAGE;
  const head = STATUS_HEAD_BYTES + d.byteLength;
  const out = new Uint8Array(
    head + (md === undefined ? 0 : metadataSize(md)) + (message?.byteLength ?? 0),
  );
  putU32(out, 0, callId);
  out[STATUS_FLAGS_AT] = flags;
  out[STATUS_CODE_AT] = code;
  out[STATUS_DETAIL_LEN_AT] = d.byteLength >>> 8;
  out[STATUS_DETAIL_LEN_AT + 1] = d.byteLength;
  out.set(d, STATUS_HEAD_BYTES);
  let o = head;
  if (md !== undefined) o = writeMetadata(out, view(out), o, md);
  if (message !== undefined) out.set(message, o);
  return out;
}

/** Encodes a HEADERS payload: the call id and a metadata block (which may hold no entry). */
export function encodeHeaders(callId: number, headers: Metadata): Uint8Array {
  const md = encodedMetadata(headers) ?? [];
  const out = new Uint8Array(CALL_ID_BYTES + metadataSize(md));
  putU32(out, 0, callId);
  writeMetadata(out, view(out), CALL_ID_BYTES, md);
  return out;
}

/**
 * Decodes a HEADERS payload; throws INTERNAL `protocol-violation` when malformed (a metadata
 * block that does not fill the rest of the payload exactly).
 */
export function decodeHeaders(p: Uint8Array): { callId: number; headers: Metadata } {
  const callId = readCallId(p, "HEADERS");
  const [headers, end] = readMetadata(p, view(p), CALL_ID_BYTES, "HEADERS");
  if (end !== p.byteLength) throw malformed("HEADERS");
  return { callId, headers };
}

/** Decodes a STATUS payload; throws INTERNAL `protocol-violation` when malformed. */
export function decodeStatus(p: Uint8Array): StatusFrame {
  if (p.byteLength < STATUS_HEAD_BYTES) throw malformed("STATUS");
  const flags = p[STATUS_FLAGS_AT] as number;
  const code = p[STATUS_CODE_AT] as number;
  if (!isCode(code)) throw malformed("STATUS");
  const dl = ((p[STATUS_DETAIL_LEN_AT] as number) << 8) | (p[STATUS_DETAIL_LEN_AT + 1] as number);
  const at = STATUS_HEAD_BYTES;
  if (at + dl > p.byteLength) throw malformed("STATUS");
  const detail = dl === 0 ? "" : decodeText(p.subarray(at, at + dl), "STATUS");
  let o = at + dl;
  let trailers: Metadata | undefined;
  if (flags & FLAG_HAS_METADATA) [trailers, o] = readMetadata(p, view(p), o, "STATUS");
  let message: Uint8Array | undefined;
  if (flags & FLAG_HAS_MESSAGE) message = p.subarray(o);
  else if (o !== p.byteLength) throw malformed("STATUS");
  return { callId: readU32(p, 0), code, detail, trailers, message };
}

/** Encodes a CANCEL payload. */
export function encodeCancel(callId: number, code: Code): Uint8Array {
  const out = new Uint8Array(CANCEL_BYTES);
  putU32(out, 0, callId);
  out[CANCEL_CODE_AT] = code;
  return out;
}

/**
 * Decodes a CANCEL payload into its code. Any code byte is accepted (PROTOCOL.md §5.5): 0 and
 * values above 16 read as CANCELLED; only a payload that is not 5 bytes is malformed.
 */
export function decodeCancel(p: Uint8Array): { callId: number; code: Code } {
  if (p.byteLength !== CANCEL_BYTES) throw malformed("CANCEL");
  const code = p[CANCEL_CODE_AT] as number;
  return {
    callId: readCallId(p, "CANCEL"),
    code: code === 0 || !isCode(code) ? Code.Canceled : code,
  };
}

/** Encodes a CREDIT payload. */
export function encodeCredit(callId: number, credit: number): Uint8Array {
  const out = new Uint8Array(CREDIT_BYTES);
  putU32(out, 0, callId);
  putU32(out, CREDIT_AT, credit);
  return out;
}

/** Decodes a CREDIT payload. */
export function decodeCredit(p: Uint8Array): { callId: number; credit: number } {
  if (p.byteLength !== CREDIT_BYTES) throw malformed("CREDIT");
  return { callId: readCallId(p, "CREDIT"), credit: readU32(p, CREDIT_AT) };
}
