import { Code, type MessageCodec, NearwireError } from "@nearwire/core";
import { envelope } from "@nearwire/core/protocol";

/** Passes grpc-js's received message bytes through unchanged. */
export function identity(bytes: Buffer): Buffer {
  return bytes;
}

/**
 * A grpc-js serializer over a codec's `encode`: grpc-js copies with `Buffer#copy`, so a plain
 * Uint8Array is wrapped (no copy) in a Buffer view.
 */
export function serializerFor<T>(codec: MessageCodec<T>): (value: T) => Buffer {
  return (value) => {
    const bytes = codec.encode(value);
    return Buffer.isBuffer(bytes)
      ? bytes
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

/**
 * A decode failure as INVALID_ARGUMENT reason `decode-failed` (codecs throw that already; a codec
 * that throws anything else is wrapped), with the server's codec name in the `nearwire-codec`
 * trailer, so that a client speaking another codec says so (PROTOCOL.md §5.6).
 */
export function decodeError(err: unknown, codec: string): NearwireError {
  const e =
    err instanceof NearwireError && err.code === Code.InvalidArgument
      ? err
      : new NearwireError(
          Code.InvalidArgument,
          `request decode failed: ${String((err as Error)?.message ?? err)}`,
          { cause: err, reason: "decode-failed" },
        );
  return new NearwireError(e.code, e.message, {
    cause: e.cause ?? err,
    reason: e.reason ?? "decode-failed",
    metadata: { ...e.metadata, [envelope.CODEC_TRAILER]: codec },
  });
}
