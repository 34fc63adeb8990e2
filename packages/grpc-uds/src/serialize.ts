import { Code, type MessageCodec, NearwireError } from "@nearwire/core";

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
 * that throws anything else is wrapped).
 */
export function decodeError(err: unknown): NearwireError {
  if (err instanceof NearwireError && err.code === Code.InvalidArgument) return err;
  return new NearwireError(
    Code.InvalidArgument,
    `request decode failed: ${String((err as Error)?.message ?? err)}`,
    {
      cause: err,
      reason: "decode-failed",
    },
  );
}
