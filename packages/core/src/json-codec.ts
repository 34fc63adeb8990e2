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
    try {
      return encoder.encode(
        hasBytes(value, 0) ? JSON.stringify(value, replacer) : JSON.stringify(value),
      );
    } catch (cause) {
      throw new NearwireError(Code.Internal, `json encode failed: ${messageOf(cause)}`, {
        cause,
        reason: "encode-failed",
      });
    }
  },
  decode(bytes) {
    try {
      if (!isUtf8(bytes)) throw new TypeError("input is not valid UTF-8");
      const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
      return (text.includes('"$bytes"') ? JSON.parse(text, reviver) : JSON.parse(text)) as unknown;
    } catch (cause) {
      throw new NearwireError(
        Code.InvalidArgument,
        `json decode failed (${bytes.byteLength} B): ${messageOf(cause)}`,
        { cause, reason: "decode-failed" },
      );
    }
  },
};

/**
 * True when `value` holds a Uint8Array anywhere (up to 64 levels deep). Checking first keeps the
 * common case on the fast path: JSON.stringify with a replacer function is several times slower.
 */
function hasBytes(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== "object" || depth > 64) return false;
  if (value instanceof Uint8Array) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (typeof v === "object" && hasBytes(v, depth + 1)) return true;
    return false;
  }
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    if (typeof v === "object" && hasBytes(v, depth + 1)) return true;
  }
  return false;
}

function replacer(this: unknown, _key: string, value: unknown): unknown {
  if (value instanceof Uint8Array)
    return {
      $bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64"),
    };
  return value;
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
