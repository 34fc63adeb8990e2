/** The status part of a gRPC response's trailers, shared by every way a server ends a call. */
import type { Metadata, NearwireError } from "@nearwire/core";
import { appendMetadata, REASON_TRAILER } from "./grpc-metadata.js";
import { percentEncode } from "./grpc-status.js";

/**
 * Appends `grpc-status` (and for an error `grpc-message`, the `nearwire-reason` trailer and the
 * error's metadata) and the handler's `trailers` to `fields`. For an error, metadata gRPC cannot
 * carry is dropped so that the status still goes out; for OK it throws INVALID_ARGUMENT (the
 * caller then ends the call with that error instead).
 */
export function appendStatus(
  fields: string[],
  error: NearwireError | undefined,
  trailers: Metadata | undefined,
): void {
  if (error === undefined) {
    fields.push("grpc-status", "0");
    if (trailers !== undefined) appendMetadata(fields, trailers);
    return;
  }
  fields.push("grpc-status", String(error.code));
  if (error.message.length > 0) fields.push("grpc-message", percentEncode(error.message));
  fields.push(REASON_TRAILER, error.reason ?? "");
  if (trailers !== undefined) safeAppend(fields, trailers);
  safeAppend(fields, error.metadata);
}

function safeAppend(fields: string[], metadata: Metadata): void {
  const before = fields.length;
  try {
    appendMetadata(fields, metadata);
  } catch {
    fields.length = before;
  }
}
