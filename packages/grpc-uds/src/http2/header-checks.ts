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
 * is malformed: an empty name or one with characters §8.2.1 forbids (upper case, controls,
 * space, colon, non-ASCII), a value with NUL, CR, LF or edge white space, a `:path` that does
 * not start with `/`, a pseudo-header that is unknown for `kind`,
 * repeated, or after a regular field, a missing `:method`/`:scheme`/`:path` (request) or
 * `:status` (response), a connection-specific field, or `te` other than `trailers`.
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one branch per rule of RFC 9113 §8.2–8.3, in the RFC's order
export function checkFieldList(
  fields: readonly string[],
  kind: FieldListKind,
  streamId: number,
): void {
  let regularSeen = false;
  let pseudo = 0;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i] as string;
    const value = fields[i + 1] as string;
    if (name.length === 0) throw malformed("an empty field name", streamId);
    checkValue(name, value, streamId);
    if (name.charCodeAt(0) === 0x3a) {
      if (regularSeen) throw malformed(`${name} after a regular field`, streamId);
      const bit = pseudoBit(name, kind);
      if (bit === 0) throw malformed(`pseudo-header ${name} in ${kind}`, streamId);
      if ((pseudo & bit) !== 0) throw malformed(`${name} repeated`, streamId);
      if (name === ":path" && value.charCodeAt(0) !== 0x2f && value !== "*")
        throw malformed(`:path ${JSON.stringify(value)} does not start with /`, streamId);
      pseudo |= bit;
      continue;
    }
    regularSeen = true;
    for (let c = 0; c < name.length; c++) {
      const code = name.charCodeAt(c);
      // RFC 9113 §8.2.1: no controls, space, upper case, colon, DEL or non-ASCII in a name.
      if (code <= 0x20 || (code >= 0x41 && code <= 0x5a) || code === 0x3a || code >= 0x7f)
        throw malformed(`field name ${JSON.stringify(name)}`, streamId);
    }
    if (CONNECTION_SPECIFIC.has(name))
      throw malformed(`connection-specific field ${name}`, streamId);
    if (name === "te" && value !== "trailers")
      throw malformed(`te: ${value} (only "trailers" is allowed)`, streamId);
  }
  if (kind === "request" && (pseudo & 0b0111) !== 0b0111)
    throw malformed("a request without :method, :scheme and :path", streamId);
  if (kind === "response" && pseudo !== 0b10000)
    throw malformed("a response without :status", streamId);
}

/** RFC 9113 §8.2.1: a value holds no NUL, CR or LF and neither starts nor ends with SP or HTAB. */
function checkValue(name: string, value: string, streamId: number): void {
  const n = value.length;
  if (n === 0) return;
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(n - 1);
  if (first === 0x20 || first === 0x09 || last === 0x20 || last === 0x09)
    throw malformed(`value of ${name} starts or ends with white space`, streamId);
  for (let c = 0; c < n; c++) {
    const code = value.charCodeAt(c);
    if (code === 0 || code === 0x0a || code === 0x0d)
      throw malformed(`value of ${name} holds NUL, CR or LF`, streamId);
  }
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
