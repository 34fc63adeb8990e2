/**
 * nearwire metadata to and from gRPC header fields: custom metadata is any field that is not a
 * pseudo-header, not reserved by gRPC (`grpc-*`) and not an HTTP/2 transport field. Keys ending
 * in `-bin` are binary: base64 on the wire (gRPC over HTTP/2, "Custom-Metadata"), and base64
 * text on the nearwire side too.
 */
import { Code, type Metadata, NearwireError } from "@nearwire/core";
import { REASON_TRAILER as ENGINE_REASON_TRAILER } from "@nearwire/core/protocol";

/**
 * The trailer that carries a NearwireError's `reason` across gRPC (PROTOCOL.md §5.6, the same
 * key as on the engine's STATUS). The server adds it to every error status it sends.
 */
export const REASON_TRAILER = ENGINE_REASON_TRAILER;

/**
 * `grpc-status-details-bin`: the one reserved key that is metadata — a `google.rpc.Status`
 * with error details, set by a handler in an error's metadata and read by a client.
 */
const STATUS_DETAILS = "grpc-status-details-bin";

/**
 * `grpc-previous-rpc-attempts`: the reserved request header a retrying client sends (gRPC A6);
 * a caller may set it; a handler does not see it, as it sees no `grpc-` key.
 */
const PREVIOUS_ATTEMPTS = "grpc-previous-rpc-attempts";

/** Fields neither a handler nor a caller sees as metadata. */
function isTransportKey(key: string): boolean {
  return (
    key.charCodeAt(0) === 0x3a ||
    (key.startsWith("grpc-") && key !== STATUS_DETAILS) ||
    key === "user-agent" ||
    key === "content-type" ||
    key === "date" ||
    key === "te" ||
    key === REASON_TRAILER
  );
}

/** Is `key` a metadata key gRPC can carry: `[0-9a-z_.-]+`? */
function validKey(key: string): boolean {
  if (key.length === 0) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    const ok =
      (c >= 0x30 && c <= 0x39) ||
      (c >= 0x61 && c <= 0x7a) ||
      c === 0x5f ||
      c === 0x2e ||
      c === 0x2d;
    if (!ok) return false;
  }
  return true;
}

function hasUpper(key: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) return true;
  }
  return false;
}

/** Is `value` printable ASCII (0x20–0x7E), as a text metadata value must be? */
function validText(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/**
 * Appends `metadata` to a flat field list, keys lower-cased. INVALID_ARGUMENT for a key gRPC
 * cannot carry (characters outside `[0-9a-z_.-]`, `grpc-` reserved except
 * `grpc-status-details-bin` and `grpc-previous-rpc-attempts`) or a text value that is not
 * printable ASCII; a `-bin` value must be base64.
 */
export function appendMetadata(fields: string[], metadata: Metadata): void {
  for (const given in metadata) {
    const value = metadata[given] as string;
    // Sent lower-case, as on every nearwire transport (HTTP/2 forbids upper-case names).
    const key = hasUpper(given) ? given.toLowerCase() : given;
    if (
      !validKey(key) ||
      (key.startsWith("grpc-") && key !== STATUS_DETAILS && key !== PREVIOUS_ATTEMPTS)
    )
      throw new NearwireError(Code.InvalidArgument, `metadata key "${key}" is not valid in gRPC`);
    if (key.endsWith("-bin")) {
      fields.push(key, value);
      continue;
    }
    if (!validText(value))
      throw new NearwireError(
        Code.InvalidArgument,
        `metadata value of "${key}" is not printable ASCII`,
      );
    fields.push(key, value);
  }
}

/** The custom metadata of a field list (from `from`, an even index), without transport keys. */
export function metadataOf(fields: readonly string[], from = 0): Metadata {
  const out: Metadata = {};
  for (let i = from; i < fields.length; i += 2) {
    const key = fields[i] as string;
    if (isTransportKey(key)) continue;
    let value = fields[i + 1] as string;
    if (key.endsWith("-bin")) value = normalizeBase64(value);
    const before = out[key];
    out[key] = before === undefined ? value : `${before},${value}`;
  }
  return out;
}

/** Base64 with padding (peers may leave it out, RFC 4648 §3.2), each of comma-joined values. */
function normalizeBase64(value: string): string {
  if (value.length % 4 === 0 && !value.includes(",")) return value;
  return value
    .split(",")
    .map((v) => Buffer.from(v.trim(), "base64").toString("base64"))
    .join(",");
}
