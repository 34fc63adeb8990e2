/** decodeError: a request the server's codec refused, as the status every transport sends. */
import { Code, NearwireError } from "@nearwire/core";
import { CODEC_TRAILER } from "@nearwire/core/protocol";
import { messageOf } from "@nearwire/core/transport-kit";

/**
 * A decode failure as INVALID_ARGUMENT reason `decode-failed` (codecs throw that already; a codec
 * that throws anything else is wrapped), with the server's codec name in the `nearwire-codec`
 * trailer, so that a client speaking another codec says so (PROTOCOL.md §5.6).
 */
export function decodeError(err: unknown, codec: string): NearwireError {
  const e =
    err instanceof NearwireError && err.code === Code.InvalidArgument
      ? err
      : new NearwireError(Code.InvalidArgument, `request decode failed: ${messageOf(err)}`, {
          cause: err,
          reason: "decode-failed",
        });
  return new NearwireError(e.code, e.message, {
    cause: e.cause ?? err,
    reason: e.reason ?? "decode-failed",
    metadata: { ...e.metadata, [CODEC_TRAILER]: codec },
  });
}
