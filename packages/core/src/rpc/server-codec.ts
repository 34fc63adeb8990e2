/** withServerCodec: names a codec mismatch from the server's `nearwire-codec` trailer. */
import { NearwireError, type NearwireErrorOptions } from "../nearwire-error.js";
import { CODEC_TRAILER } from "./envelope.js";

/**
 * `error` (a call's error STATUS, its trailers in `metadata`) after the server's
 * `nearwire-codec` trailer is read (PROTOCOL.md §5.6): the trailer is taken out of the metadata,
 * and when it names another codec than the client's (`codec`) the error is a codec mismatch: its
 * code kept, reason `codec-mismatch`, "client speaks msgpack, server json: …".
 * Every client uses it: the RPC engine and grpc-uds.
 */
export function withServerCodec(error: NearwireError, codec: string): NearwireError {
  const theirs = error.metadata[CODEC_TRAILER];
  if (theirs === undefined) return error;
  const { [CODEC_TRAILER]: _, ...metadata } = error.metadata;
  if (theirs === codec) {
    const opts: NearwireErrorOptions = { cause: error.cause, metadata };
    if (error.reason !== undefined) opts.reason = error.reason;
    return new NearwireError(error.code, error.message, opts);
  }
  return new NearwireError(
    error.code,
    `client speaks ${codec}, server ${theirs}: ${error.message}`,
    {
      cause: error,
      metadata,
      reason: "codec-mismatch",
    },
  );
}
