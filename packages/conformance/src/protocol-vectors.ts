/** The hex test vectors of PROTOCOL.md, read from the file itself so the doc cannot drift. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** One `vector:` block of PROTOCOL.md: its name and its `key: value` fields. */
export interface Vector {
  name: string;
  fields: Map<string, string>;
}

const HEX_KEYS = new Set([
  "payload",
  "frame",
  "stream",
  "input",
  "crc32c",
  "client-stream",
  "server-stream",
  "client-frames",
  "record",
  "records",
  "bytes",
]);

/**
 * Parses every fenced block of PROTOCOL.md (at the repository root) that starts with
 * `vector: <name>`: the shared test vectors that frame, uds and shm-ring tests read, so that
 * the document and the code cannot drift apart.
 */
export function readVectors(): Map<string, Vector> {
  const path = fileURLToPath(new URL("../../../PROTOCOL.md", import.meta.url));
  const text = readFileSync(path, "utf8");
  const vectors = new Map<string, Vector>();
  for (const block of text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)) {
    const lines = (block[1] ?? "").split("\n").filter((l) => l.length > 0);
    const first = /^vector: (\S+)$/.exec(lines[0] ?? "");
    if (first === null) continue;
    const name = first[1] as string;
    const fields = new Map<string, string>();
    let last: string | undefined;
    for (const line of lines.slice(1)) {
      const kv = /^([a-z][a-z0-9-]*):(?: (.*))?$/.exec(line);
      if (kv !== null) {
        last = kv[1] as string;
        fields.set(last, kv[2] ?? "");
      } else if (last !== undefined) {
        fields.set(last, `${fields.get(last)} ${line}`);
      } else {
        throw new Error(`vector ${name}: line without key: ${line}`);
      }
    }
    if (vectors.has(name)) throw new Error(`duplicate vector ${name}`);
    vectors.set(name, { name, fields });
  }
  return vectors;
}

/** A field of a vector; throws when missing. Hex fields come back as bytes via {@link hex}. */
export function field(v: Vector, key: string): string {
  const value = v.fields.get(key);
  if (value === undefined) throw new Error(`vector ${v.name} has no field ${key}`);
  return value;
}

/** A hex field as bytes (whitespace ignored). */
export function hex(v: Vector, key: string): Uint8Array {
  if (!HEX_KEYS.has(key)) throw new Error(`${key} is not a hex field`);
  const clean = field(v, key).replace(/\s+/g, "");
  if (!/^([0-9a-f]{2})*$/.test(clean)) throw new Error(`vector ${v.name} ${key}: bad hex`);
  return new Uint8Array(Buffer.from(clean, "hex"));
}

/** The input bytes of a vector: `input` (hex), `input-text` (ASCII) or `stream` (hex). */
export function inputBytes(v: Vector): Uint8Array {
  if (v.fields.has("input-text")) return new TextEncoder().encode(field(v, "input-text"));
  if (v.fields.has("stream")) return hex(v, "stream");
  return hex(v, "input");
}
