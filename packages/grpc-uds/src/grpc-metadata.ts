/** nearwire metadata and errors to and from gRPC metadata and status. */
import { Metadata as GrpcMetadata, type ServiceError } from "@grpc/grpc-js";
import { Code, type ErrorReason, type Metadata, NearwireError } from "@nearwire/core";
import { envelope } from "@nearwire/core/protocol";

/**
 * The trailer that carries a NearwireError's `reason` across gRPC (PROTOCOL.md §5.6, the same key
 * as on the engine's STATUS). The server adds it to every error status it sends (empty when there
 * is no reason), so a client can tell statuses made by the nearwire wrapper from those grpc-js
 * makes on its own (message size limits).
 */
export const REASON_TRAILER = envelope.REASON_TRAILER;

/**
 * Headers neither a handler nor a caller sees: gRPC's reserved `grpc-*` keys and the HTTP/2
 * transport headers grpc-js adds (`user-agent`, `content-type`, `te`; `date` and `content-type`
 * land in the error metadata of a trailers-only response), so `ctx.metadata` and an error's
 * `metadata` hold what the peer sent, as on `uds`.
 */
function isTransportKey(key: string): boolean {
  return (
    key.startsWith("grpc-") ||
    key === "user-agent" ||
    key === "content-type" ||
    key === "date" ||
    key === "te"
  );
}

/**
 * Nearwire metadata to gRPC metadata. Keys ending in `-bin` are binary in gRPC: their values are
 * base64 text on the nearwire side. A key gRPC rejects throws INVALID_ARGUMENT.
 */
export function toGrpcMetadata(
  metadata: Metadata,
  into: GrpcMetadata = new GrpcMetadata(),
): GrpcMetadata {
  for (const key in metadata) {
    const value = metadata[key] as string;
    try {
      if (key.endsWith("-bin")) into.set(key, Buffer.from(value, "base64"));
      else into.set(key, value);
    } catch (cause) {
      throw new NearwireError(Code.InvalidArgument, `metadata key "${key}" is not valid in gRPC`, {
        cause,
      });
    }
  }
  return into;
}

/** gRPC metadata to nearwire metadata (binary values as base64), without transport keys. */
export function fromGrpcMetadata(metadata: GrpcMetadata | undefined): Metadata {
  const out: Metadata = {};
  if (metadata === undefined) return out;
  const map = metadata.getMap();
  for (const key in map) {
    if (isTransportKey(key) || key === REASON_TRAILER) continue;
    const value = map[key];
    out[key] = typeof value === "string" ? value : (value as Buffer).toString("base64");
  }
  return out;
}

/** What grpc-js accepts as an error status from a handler. */
export interface GrpcStatusError {
  code: number;
  details: string;
  metadata: GrpcMetadata;
}

/**
 * A thrown value as a gRPC status: a NearwireError keeps its code, message, metadata and reason
 * (in {@link REASON_TRAILER}); anything else becomes UNKNOWN via `NearwireError.from`. `trailers`
 * (the handler's `ctx.trailers`) are merged under the error's own metadata.
 */
export function toGrpcStatus(thrown: unknown, trailers?: Metadata): GrpcStatusError {
  const err = NearwireError.from(thrown);
  const metadata = new GrpcMetadata();
  if (trailers !== undefined) toGrpcMetadata(trailers, metadata);
  safeSetMetadata(err.metadata, metadata);
  metadata.set(REASON_TRAILER, err.reason ?? "");
  return { code: err.code, details: err.message, metadata };
}

function safeSetMetadata(source: Metadata, into: GrpcMetadata): void {
  try {
    toGrpcMetadata(source, into);
  } catch {
    // A trailer key gRPC cannot carry is dropped rather than turning the status into INTERNAL.
  }
}

/** A grpc-js client error (a ServiceError, or anything thrown around a call) as a NearwireError. */
export function fromGrpcError(thrown: unknown): NearwireError {
  if (thrown instanceof NearwireError) return thrown;
  const err = thrown as Partial<ServiceError>;
  if (typeof err?.code !== "number" || err.metadata === undefined)
    return NearwireError.from(thrown);
  const reasonValues = err.metadata.get(REASON_TRAILER);
  let reason: ErrorReason | undefined;
  if (reasonValues.length > 0) {
    const value = reasonValues[0];
    if (typeof value === "string" && value.length > 0) reason = value as ErrorReason;
  } else if ((err.code as number) === Code.ResourceExhausted) {
    reason = "message-too-large";
  }
  const opts: { cause: unknown; metadata: Metadata; reason?: ErrorReason } = {
    cause: thrown,
    metadata: fromGrpcMetadata(err.metadata),
  };
  if (reason !== undefined) opts.reason = reason;
  return new NearwireError(err.code as number as Code, err.details ?? String(err.message), opts);
}
