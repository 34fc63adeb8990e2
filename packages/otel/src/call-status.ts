/**
 * How a call's outcome maps onto a span: its gRPC status code, and whether that code marks the
 * span as failed, which depends on the side (OpenTelemetry semantic conventions for gRPC).
 *
 * @see https://opentelemetry.io/docs/specs/semconv/rpc/grpc/#grpc-status
 */
import { Code, NearwireError } from "@nearwire/core";

/**
 * The status code a call that failed with `error` ends with: a NearwireError's code, UNKNOWN
 * for anything else (what the server engine answers for a handler's plain `Error`, and what a
 * client's engine never rejects with).
 */
export function codeOf(error: unknown): Code {
  if (error instanceof NearwireError && error.code !== Code.OK) return error.code;
  return Code.Unknown;
}

/** Codes a server reports as its own failure; the others are the caller's doing. */
const SERVER_ERRORS: ReadonlySet<Code> = new Set([
  Code.Unknown,
  Code.DeadlineExceeded,
  Code.Unimplemented,
  Code.Internal,
  Code.Unavailable,
  Code.DataLoss,
]);

/** Whether a call ending with `code` sets span status ERROR: any non-OK on a client. */
export function isSpanError(side: "client" | "server", code: Code): boolean {
  if (code === Code.OK) return false;
  return side === "client" || SERVER_ERRORS.has(code);
}
