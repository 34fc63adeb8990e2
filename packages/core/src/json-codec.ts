import { Code } from "./code.js";
import type { Codec, MessageCodec } from "./codec.js";
import { NearwireError } from "./nearwire-error.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

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
      return encoder.encode(JSON.stringify(value, replacer));
    } catch (cause) {
      throw new NearwireError(Code.Internal, `json encode failed: ${(cause as Error).message}`, {
        cause,
        reason: "encode-failed",
      });
    }
  },
  decode(bytes) {
    try {
      return JSON.parse(decoder.decode(bytes), reviver) as unknown;
    } catch (cause) {
      throw new NearwireError(
        Code.InvalidArgument,
        `json decode failed (${bytes.byteLength} B): ${(cause as Error).message}`,
        { cause, reason: "decode-failed" },
      );
    }
  },
};

function replacer(this: unknown, _key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") };
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
