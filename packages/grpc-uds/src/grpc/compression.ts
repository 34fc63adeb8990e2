/**
 * Message compression (`grpc-encoding`): identity and gzip. A message is compressed only when
 * its flag says so; decompressed output is bounded by `maxMessageBytes`.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { Code, NearwireError } from "@nearwire/core";
import { messageOf } from "@nearwire/core/transport-kit";

/** The encodings this side takes, for `grpc-accept-encoding`. */
export const ACCEPT_ENCODING = "identity,gzip";

/** Message encodings supported. */
export type Encoding = "identity" | "gzip";

/** The encoding named by a `grpc-encoding` value, or undefined when it is not supported. */
export function encodingOf(value: string | undefined): Encoding | undefined {
  if (value === undefined || value === "identity") return "identity";
  if (value === "gzip") return "gzip";
  return undefined;
}

/**
 * The message of a compressed frame. INTERNAL when the flag is set under `identity` (the spec's
 * rule) or the data is not gzip; RESOURCE_EXHAUSTED `message-too-large` past `maxBytes`.
 */
export function decompress(
  encoding: Encoding,
  bytes: Uint8Array,
  maxBytes: number,
  what: string,
): Uint8Array {
  if (encoding === "identity")
    throw new NearwireError(
      Code.Internal,
      `${what} is flagged compressed but grpc-encoding is identity`,
      {
        reason: "protocol-violation",
      },
    );
  try {
    return gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
      throw new NearwireError(
        Code.ResourceExhausted,
        `${what} decompresses to > maxMessageBytes ${maxBytes}`,
        {
          cause,
          reason: "message-too-large",
        },
      );
    throw new NearwireError(Code.Internal, `${what} is not valid gzip: ${messageOf(cause)}`, {
      cause,
    });
  }
}

/** gzip of a message. */
export function compress(bytes: Uint8Array): Uint8Array {
  return gzipSync(bytes);
}
