/**
 * The checks RFC 9113 §8.2–8.3 puts on a decoded field list: a list that breaks them is
 * malformed, a stream error PROTOCOL_ERROR (§8.1.1).
 */
import { H2Code, Http2Error } from "./frame.js";

/** Which list is checked: a request's headers, a response's headers, or trailers. */
export type FieldListKind = "request" | "response" | "trailers";

const REQUEST_PSEUDO = new Set([":method", ":scheme", ":path", ":authority"]);
const CONNECTION_SPECIFIC = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
]);

/**
 * Throws a stream error (PROTOCOL_ERROR on `streamId`) when `fields` (flat name, value pairs)
 * is malformed: an upper-case or empty name, a pseudo-header that is unknown for `kind`,
 * repeated, or after a regular field, a missing `:method`/`:scheme`/`:path` (request) or
 * `:status` (response), a connection-specific field, or `te` other than `trailers`.
 */
export function checkFieldList(
  fields: readonly string[],
  kind: FieldListKind,
  streamId: number,
): void {
  let regularSeen = false;
  let pseudo = 0;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i] as string;
    if (name.length === 0) throw malformed("an empty field name", streamId);
    if (name.charCodeAt(0) === 0x3a) {
      if (regularSeen) throw malformed(`${name} after a regular field`, streamId);
      const bit = pseudoBit(name, kind);
      if (bit === 0) throw malformed(`pseudo-header ${name} in ${kind}`, streamId);
      if ((pseudo & bit) !== 0) throw malformed(`${name} repeated`, streamId);
      pseudo |= bit;
      continue;
    }
    regularSeen = true;
    for (let c = 0; c < name.length; c++) {
      const code = name.charCodeAt(c);
      if (code >= 0x41 && code <= 0x5a) throw malformed(`upper-case field name ${name}`, streamId);
    }
    if (CONNECTION_SPECIFIC.has(name))
      throw malformed(`connection-specific field ${name}`, streamId);
    if (name === "te" && fields[i + 1] !== "trailers")
      throw malformed(`te: ${fields[i + 1]} (only "trailers" is allowed)`, streamId);
  }
  if (kind === "request" && (pseudo & 0b0111) !== 0b0111)
    throw malformed("a request without :method, :scheme and :path", streamId);
  if (kind === "response" && pseudo !== 0b10000)
    throw malformed("a response without :status", streamId);
}

function pseudoBit(name: string, kind: FieldListKind): number {
  if (kind === "request") {
    if (!REQUEST_PSEUDO.has(name)) return 0;
    switch (name) {
      case ":method":
        return 0b0001;
      case ":scheme":
        return 0b0010;
      case ":path":
        return 0b0100;
      default:
        return 0b1000;
    }
  }
  if (kind === "response" && name === ":status") return 0b10000;
  return 0;
}

function malformed(what: string, streamId: number): Http2Error {
  return new Http2Error(H2Code.PROTOCOL_ERROR, `malformed field list: ${what}`, streamId);
}

/** The value of the first field `name` in a flat list, or undefined. */
export function fieldValue(fields: readonly string[], name: string): string | undefined {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}
