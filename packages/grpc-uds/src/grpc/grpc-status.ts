/**
 * gRPC status on HTTP/2: `grpc-message` percent-encoding, and the codes a client gives when it
 * gets no `grpc-status` — from the HTTP status (gRPC's "HTTP to gRPC Status Code Mapping") or
 * from the RST_STREAM error code (as grpc-go maps them).
 */
import { Code } from "@nearwire/core";
import { H2Code } from "../http2/frame.js";

/**
 * `grpc-message` for `message`: UTF-8, with bytes outside 0x20–0x7E and `%` written `%XX`
 * (gRPC over HTTP/2, "Responses").
 */
export function percentEncode(message: string): string {
  let plain = true;
  for (let i = 0; i < message.length; i++) {
    const c = message.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x25) {
      plain = false;
      break;
    }
  }
  if (plain) return message;
  const bytes = Buffer.from(message, "utf8");
  let out = "";
  for (const b of bytes) {
    out +=
      b < 0x20 || b > 0x7e || b === 0x25
        ? `%${b.toString(16).toUpperCase().padStart(2, "0")}`
        : String.fromCharCode(b);
  }
  return out;
}

/** Decodes a `grpc-message`; a malformed `%` sequence is kept as it is (as the spec asks). */
export function percentDecode(value: string): string {
  if (!value.includes("%")) return value;
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (
      c === 0x25 &&
      i + 2 < value.length + 0 &&
      /^[0-9a-fA-F]{2}$/.test(value.slice(i + 1, i + 3))
    ) {
      bytes.push(Number.parseInt(value.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(c & 0xff);
  }
  return Buffer.from(bytes).toString("utf8");
}

/** The gRPC code for a response whose HTTP status is not 200 and that carries no `grpc-status`. */
export function codeOfHttpStatus(status: number): Code {
  switch (status) {
    case 400:
      return Code.Internal;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.Unimplemented;
    case 429:
    case 502:
    case 503:
    case 504:
      return Code.Unavailable;
    default:
      return Code.Unknown;
  }
}

/** The gRPC code for a stream reset with an HTTP/2 error code (grpc-go's table). */
export function codeOfH2Error(code: number): Code {
  switch (code) {
    case H2Code.REFUSED_STREAM:
      return Code.Unavailable;
    case H2Code.CANCEL:
      return Code.Canceled;
    case H2Code.ENHANCE_YOUR_CALM:
    case H2Code.FLOW_CONTROL_ERROR:
      return Code.ResourceExhausted;
    case H2Code.INADEQUATE_SECURITY:
      return Code.PermissionDenied;
    default:
      return Code.Internal;
  }
}
