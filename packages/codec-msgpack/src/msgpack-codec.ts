/** createMsgpackCodec: MessagePack (@msgpack/msgpack) as a nearwire codec. */
import type { DecoderOptions, EncoderOptions } from "@msgpack/msgpack";
import { Decoder, Encoder } from "@msgpack/msgpack";
import type { Codec, MessageCodec } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import { messageOf } from "@nearwire/core/transport-kit";

/** Options of {@link createMsgpackCodec}. */
export interface MsgpackCodecOptions {
  /**
   * Passed to the one `@msgpack/msgpack` `Encoder` the codec reuses (for example
   * `initialBufferSize`, default 2048 B, or `ignoreUndefined`). `useBigInt64` must match on both
   * sides: with it, `bigint` values encode as 64-bit integers and 64-bit integers decode as
   * `bigint`.
   */
  readonly encoder?: EncoderOptions;
  /**
   * Passed to the one `Decoder` the codec reuses: the limits `maxStrLength`, `maxBinLength`,
   * `maxArrayLength`, `maxMapLength`, `maxExtLength` (default 4294967295 each) bound what a
   * hostile peer can make the decoder allocate.
   */
  readonly decoder?: DecoderOptions;
}

/**
 * MessagePack ({@link https://github.com/msgpack/msgpack/blob/master/spec.md | spec}) through
 * `@msgpack/msgpack`. Schema-less like JSON: one {@link MessageCodec} serves every message type,
 * and any well-formed MessagePack document decodes, whatever its shape (the format has no schema
 * to check it against).
 *
 * - One `Encoder` and one `Decoder` are made here and reused for every message.
 * - `encodeInto` encodes into the encoder's own reusable buffer and copies once into `dest`
 *   (the library cannot write into a caller's buffer), so `encode` + a copy is never needed.
 * - `decodesInPlace` is true: `bin` values decode as `subarray` views of the input bytes.
 * - Numbers: integers in the safe range encode as MessagePack integers, so `-0` decodes as `0`;
 *   `NaN` and `±Infinity` round-trip as float64. Maps decode to plain objects (the key
 *   `__proto__` is rejected). `undefined` encodes as nil and decodes as `null`.
 *
 * Errors: encode throws INTERNAL `encode-failed`; decode throws INVALID_ARGUMENT
 * `decode-failed` for truncated input, trailing bytes, malformed or over-limit values.
 */
export function createMsgpackCodec(options: MsgpackCodecOptions = {}): Codec {
  const encoder = new Encoder(options.encoder);
  const decoder = new Decoder(options.decoder);

  function encodeIntoRange(value: unknown, dest: Uint8Array, start: number, end: number): number {
    let view: Uint8Array;
    try {
      view = encoder.encodeSharedRef(value);
    } catch (cause) {
      throw encodeFailed(cause);
    }
    if (!(start >= 0 && end <= dest.byteLength && view.byteLength <= end - start)) return -1;
    dest.set(view, start);
    return view.byteLength;
  }

  const messageCodec: MessageCodec<unknown> = {
    decodesInPlace: true,
    encode(value) {
      try {
        return encoder.encode(value);
      } catch (cause) {
        throw encodeFailed(cause);
      }
    },
    encodeInto(value, dest, offset) {
      return encodeIntoRange(value, dest, offset, dest.byteLength);
    },
    encodeIntoRange,
    decode(bytes) {
      try {
        return decoder.decode(bytes);
      } catch (cause) {
        throw new NearwireError(
          Code.InvalidArgument,
          `msgpack decode failed (${bytes.byteLength} B): ${messageOf(cause)}`,
          { cause, reason: "decode-failed" },
        );
      }
    },
  };

  return {
    name: "msgpack",
    forType<T>(): MessageCodec<T> {
      return messageCodec as MessageCodec<T>;
    },
  };
}

function encodeFailed(cause: unknown): NearwireError {
  return new NearwireError(Code.Internal, `msgpack encode failed: ${messageOf(cause)}`, {
    cause,
    reason: "encode-failed",
  });
}
