/** jsonCodec: JSON as UTF-8, with byte arrays as base64. */
import { isUtf8 } from "node:buffer";
import { Code } from "./code.js";
import type { Codec, MessageCodec } from "./codec.js";
import { messageOf, NearwireError } from "./nearwire-error.js";

const encoder = new TextEncoder();

/**
 * JSON as UTF-8 (RFC 8259). Byte arrays are encoded as `{"$bytes":"<base64>"}` so that a
 * message with a `Uint8Array` field round-trips; `bigint` values are not supported.
 */
export const jsonCodec: Codec = {
  name: "json",
  forType<T>(): MessageCodec<T> {
    return jsonMessageCodec as MessageCodec<T>;
  },
};

const jsonMessageCodec: MessageCodec<unknown> = {
  decodesInPlace: false,
  encode(value) {
    return encoder.encode(textOf(value, bytesTextLength(value, 0)));
  },
  encodeInto: (value, dest, offset) => encodeIntoRange(value, dest, offset, dest.byteLength),
  encodeIntoRange,
  decode: (bytes) => decodeJson(bytes, 0, bytes.byteLength, false),
  decodeOwnedRange: (bytes, start, end) => decodeJson(bytes, start, end, true),
};

/**
 * Decodes the JSON text `bytes[start … end)`. `owned`: the caller gives those bytes up, so byte
 * arrays of the usual shape are decoded into the bytes where their base64 lay (see
 * {@link decodeFlat}).
 */
function decodeJson(bytes: Uint8Array, start: number, end: number, owned: boolean): unknown {
  try {
    if (!(start >= 0 && start <= end && end <= bytes.byteLength))
      throw new RangeError(`range [${start}, ${end}) of ${bytes.byteLength} B`);
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start);
    if (!isUtf8(buf)) throw new TypeError("input is not valid UTF-8");
    const flat = buf.byteLength >= FLAT_DECODE_MIN_BYTES ? decodeFlat(buf, owned) : NOT_FLAT_TEXT;
    if (flat !== NOT_FLAT_TEXT) return flat;
    const text = buf.toString("utf8");
    // A key spelled with escapes ("\u0024bytes") is "$bytes" to JSON.parse too.
    const mayHaveBytes = text.includes(BYTES_KEY) || text.includes("\\u");
    return (mayHaveBytes ? JSON.parse(text, reviver) : JSON.parse(text)) as unknown;
  } catch (cause) {
    throw new NearwireError(
      Code.InvalidArgument,
      `json decode failed (${end - start} B): ${messageOf(cause)}`,
      { cause, reason: "decode-failed" },
    );
  }
}

/**
 * The UTF-8 text straight into the send buffer: no byte array of its own per message (a 64 KiB
 * chunk is 87 KiB of base64 text). A range shorter than the message's base64 alone is refused
 * before any text is made (a transport tries a socket batch first, then a larger buffer). A
 * message of the usual shape for bytes (see {@link encodeFlat}) is written in pieces.
 */
function encodeIntoRange(value: unknown, dest: Uint8Array, start: number, end: number): number {
  if (!(start >= 0 && start <= end && end <= dest.byteLength)) return -1;
  const base64 = bytesTextLength(value, 0);
  if (base64 > end - start) return -1;
  if (base64 >= 0) {
    const n = encodeFlat(value as object, dest, start, end);
    if (n !== NOT_FLAT) return n;
  }
  const text = textOf(value, base64);
  // UTF-8 takes at least one byte per UTF-16 unit: a range shorter than the text is too small.
  if (text.length > end - start) return -1;
  const r = encoder.encodeInto(text, dest.subarray(start, end));
  return r.read < text.length ? -1 : r.written;
}

/** What {@link encodeFlat} returns for a value of another shape. */
const NOT_FLAT = -2;

/**
 * Writes the JSON text of `value` into `dest[start … end)` in pieces when it is a plain object
 * whose fields are all primitives or plain `Uint8Array`s (a chunk of a file, a blob with its
 * metadata): the text between two byte arrays as one UTF-8 write, each array's base64 straight
 * into the range. JSON.stringify made a second copy of each array's base64, inside the text of
 * the whole message (a 64 KiB chunk: two strings of 87 KiB): over a 1 GiB upload the sender's
 * young generation grew 30–33 MiB, 8–15 MiB with this, and its CPU fell from 3.6–4.5 to
 * 1.5–3.0 s per GiB. The bytes are the same as JSON.stringify with the codec's `$bytes`
 * replacer makes. Returns their count, -1 when the range is too small (some may be written),
 * or {@link NOT_FLAT}, with nothing written, for any other value (nested objects, a `toJSON`,
 * a Buffer, a bigint), which the caller stringifies.
 */
function encodeFlat(value: object, dest: Uint8Array, start: number, end: number): number {
  const proto = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || "toJSON" in value) return NOT_FLAT;
  const fields = value as Record<string, unknown>;
  const keys = Object.keys(fields);
  for (const k of keys) {
    const v = fields[k];
    if (typeof v === "bigint") return NOT_FLAT;
    if (typeof v === "object" && v !== null && Object.getPrototypeOf(v) !== Uint8Array.prototype)
      return NOT_FLAT;
  }
  let at = start;
  /** Writes `piece` at `at`; false when the range has no room for all of it. */
  const put = (piece: string): boolean => {
    const r = encoder.encodeInto(piece, dest.subarray(at, end));
    at += r.written;
    return r.read === piece.length;
  };
  let text = "{";
  let sep = "";
  for (const k of keys) {
    const v = fields[k];
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
    text += `${sep}${JSON.stringify(k)}:`;
    sep = ",";
    if (!(v instanceof Uint8Array)) {
      text += JSON.stringify(v);
      continue;
    }
    if (!put(`${text}{"$bytes":"`)) return -1;
    const b64 = base64Of(v);
    if (b64.length > end - at) return -1;
    at += Buffer.from(dest.buffer, dest.byteOffset, dest.byteLength).write(
      b64,
      at,
      b64.length,
      "latin1",
    );
    text = '"}';
  }
  return put(`${text}}`) ? at - start : -1;
}

/** The JSON text of `value` (`base64`: what {@link bytesTextLength} found in it). */
function textOf(value: unknown, base64: number): string {
  try {
    // No text (undefined, a function) encodes as no bytes, as TextEncoder makes of undefined.
    return (base64 >= 0 ? JSON.stringify(value, replacer) : JSON.stringify(value)) ?? "";
  } catch (cause) {
    throw new NearwireError(Code.Internal, `json encode failed: ${messageOf(cause)}`, {
      cause,
      reason: "encode-failed",
    });
  }
}

/**
 * The base64 characters of the byte arrays in `value` (up to 64 levels deep), or -1 when it
 * holds none. Checking first keeps the common case on the fast path (JSON.stringify with a
 * replacer function is several times slower), and a message's text is at least this long.
 */
function bytesTextLength(value: unknown, depth: number): number {
  if (value === null || typeof value !== "object" || depth > 64) return -1;
  if (value instanceof Uint8Array) return Math.ceil(value.byteLength / 3) * 4;
  let sum = -1;
  if (Array.isArray(value)) {
    for (const v of value) {
      if (typeof v !== "object") continue;
      const n = bytesTextLength(v, depth + 1);
      if (n >= 0) sum = Math.max(sum, 0) + n;
    }
    return sum;
  }
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    if (typeof v !== "object") continue;
    const n = bytesTextLength(v, depth + 1);
    if (n >= 0) sum = Math.max(sum, 0) + n;
  }
  return sum;
}

function replacer(this: unknown, _key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return { $bytes: base64Of(value) };
  return value;
}

/** A byte array as this codec writes it opens with these bytes: `{"$bytes":"`. */
const BYTES_OPEN = Buffer.from('{"$bytes":"', "latin1");
const BYTES_KEY = '"$bytes"';
const QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;
/**
 * Below this size (1 KiB) a message is parsed whole: its byte arrays are short, and looking for
 * them first cost a small message (a 90-byte tick) about 7 % more per decode.
 */
const FLAT_DECODE_MIN_BYTES = 1024;
/** What {@link decodeFlat} returns for a text of another shape. */
const NOT_FLAT_TEXT = Symbol("not flat");

/**
 * Reads a message whose byte arrays are all written as this codec writes them (`{"$bytes":"…"}`,
 * no whitespace, the base64 padded), with no escape anywhere in the rest of the text: each
 * array's base64 is taken from the bytes where it lies (one Latin-1 string of it, decoded into
 * an array of its own, or with `owned` into `buf` where the text began: base64 is longer than
 * what it holds), and JSON.parse reads the rest of the text, with the array's index where its
 * base64 was. Parsing the whole text made two strings
 * of each array's base64 (the text's and the parsed value's, 87 KiB each for a 64 KiB chunk)
 * and scanned it twice. Returns {@link NOT_FLAT_TEXT} for any other text (no byte array, `"$bytes"`
 * anywhere else, a backslash, base64 with a character outside its alphabet), with `buf` as it
 * was (base64 decoded in place is written back): the caller parses it whole, so the result is
 * always what JSON.parse with the `$bytes` reviver gives.
 */
function decodeFlat(buf: Buffer, owned: boolean): unknown {
  let at = buf.indexOf(BYTES_OPEN);
  if (at < 0) return NOT_FLAT_TEXT;
  const arrays: Uint8Array[] = [];
  /** With `owned`: each array's text and where it began, to write back (nothing made without). */
  const undo: TextAt[] | undefined = owned ? [] : undefined;
  let text = "";
  let from = 0;
  while (at >= 0) {
    const start = at + BYTES_OPEN.byteLength;
    const close = buf.indexOf(QUOTE, start);
    if (close < 0 || buf[close + 1] !== CLOSE_BRACE) return writeBack(buf, undo);
    const b64 = buf.toString("latin1", start, close);
    const n = paddedBase64Bytes(b64);
    text += `${buf.toString("utf8", from, start)}${arrays.length}`;
    let array: Uint8Array;
    if (undo !== undefined) {
      undo.push({ text: b64, at: start });
      // Fewer bytes than the text's length promises: a character the decoder skipped (outside
      // the alphabet, a control character JSON would refuse) or missing padding.
      if (n < 0 || buf.write(b64, start, n, "base64") !== n) return writeBack(buf, undo);
      array = new Uint8Array(buf.buffer, buf.byteOffset + start, n);
    } else {
      const decoded = Buffer.from(b64, "base64");
      if (decoded.byteLength !== n) return writeBack(buf, undo);
      array = new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength);
    }
    arrays.push(array);
    from = close;
    at = buf.indexOf(BYTES_OPEN, close);
  }
  text += buf.toString("utf8", from);
  // Every "$bytes" of the rest must be one of the arrays read here (none as a value, none in an
  // object of other keys); with no backslash, none is spelled with an escape either.
  if (text.includes("\\") || countOf(text, BYTES_KEY) !== arrays.length)
    return writeBack(buf, undo);
  return JSON.parse(text, (_key, value: unknown) =>
    value !== null && typeof value === "object" && "$bytes" in value
      ? arrays[Number((value as { $bytes: string }).$bytes)]
      : value,
  );
}

/** Base64 text that lay in a buffer at `at`, before it was decoded there. */
interface TextAt {
  text: string;
  at: number;
}

/** Writes each text of `undo` back where it lay in `buf` (Latin-1: byte for byte). */
function writeBack(buf: Buffer, undo: TextAt[] | undefined): typeof NOT_FLAT_TEXT {
  if (undo !== undefined) for (const { text, at } of undo) buf.write(text, at, "latin1");
  return NOT_FLAT_TEXT;
}

/** The bytes that padded base64 of this length holds, or -1 when the length is not whole quads. */
function paddedBase64Bytes(b64: string): number {
  const n = b64.length;
  if (n % 4 !== 0) return -1;
  const pad = n === 0 ? 0 : b64.charCodeAt(n - 1) !== 61 ? 0 : b64.charCodeAt(n - 2) === 61 ? 2 : 1;
  return (n / 4) * 3 - pad;
}

/** How many times `part` occurs in `text` (not overlapping). */
function countOf(text: string, part: string): number {
  let count = 0;
  for (let i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + part.length)) count++;
  return count;
}

/** The base64 text of `bytes` (no copy of them). */
function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

function reviver(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === "object" && "$bytes" in value) {
    const b64 = (value as { $bytes: unknown }).$bytes;
    if (typeof b64 === "string" && Object.keys(value).length === 1) {
      const buf = Buffer.from(b64, "base64");
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    }
  }
  return value;
}
