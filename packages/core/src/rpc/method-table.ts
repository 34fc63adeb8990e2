/** A server's methods, found by the path bytes of a REQUEST without a string per call. */
import type { ServedMethod } from "./served-method.js";

/** A method with its path bytes and those bytes as little-endian 32-bit words, for the compare. */
interface Entry {
  readonly method: ServedMethod;
  readonly bytes: Uint8Array;
  readonly words: Int32Array;
}

/**
 * The methods of a server, found by the UTF-8 path bytes of a REQUEST without building a
 * string per call: an FNV-1a hash of the bytes picks a bucket, and the bytes are compared.
 */
export class MethodTable {
  private readonly byHash = new Map<number, Entry[]>();
  private readonly byPath = new Map<string, ServedMethod>();
  /** The method {@link lookup} found last. */
  private last: Entry | undefined = undefined;

  /** Number of methods. */
  get size(): number {
    return this.byPath.size;
  }

  has(path: string): boolean {
    return this.byPath.has(path);
  }

  add(method: ServedMethod): void {
    const bytes = method.bound.pathBytes;
    this.byPath.set(method.bound.path, method);
    const entry: Entry = { method, bytes, words: wordsOf(bytes) };
    const h = hash(bytes, 0, bytes.byteLength);
    const bucket = this.byHash.get(h);
    if (bucket === undefined) this.byHash.set(h, [entry]);
    else bucket.push(entry);
  }

  /**
   * The method whose path is `p[at … at+len)`, or undefined. The method found last is compared
   * first: calls on a connection mostly repeat a method, and a match then costs one compare of
   * the bytes instead of hashing them, a Map lookup and the compare.
   */
  lookup(p: Uint8Array, at: number, len: number): ServedMethod | undefined {
    const last = this.last;
    if (last !== undefined && samePath(last, p, at, len)) return last.method;
    const bucket = this.byHash.get(hash(p, at, len));
    if (bucket === undefined) return undefined;
    for (const entry of bucket) {
      if (samePath(entry, p, at, len)) {
        this.last = entry;
        return entry.method;
      }
    }
    return undefined;
  }
}

/** `bytes` as little-endian 32-bit words; a last partial word is left out (compared by bytes). */
function wordsOf(bytes: Uint8Array): Int32Array {
  const words = new Int32Array(bytes.byteLength >> 2);
  for (let k = 0; k < words.length; k++) words[k] = le32(bytes, 4 * k);
  return words;
}

function le32(p: Uint8Array, i: number): number {
  return (
    (p[i] as number) |
    ((p[i + 1] as number) << 8) |
    ((p[i + 2] as number) << 16) |
    ((p[i + 3] as number) << 24)
  );
}

/**
 * True when `p[at … at+len)` is the entry's path. Four bytes of `p` are compared at a time with
 * a word of the path, about half the work of a byte loop, and the compare runs on every
 * REQUEST.
 */
function samePath(entry: Entry, p: Uint8Array, at: number, len: number): boolean {
  const bytes = entry.bytes;
  if (bytes.byteLength !== len) return false;
  const words = entry.words;
  const whole = words.length;
  for (let k = 0; k < whole; k++) if (le32(p, at + 4 * k) !== words[k]) return false;
  for (let i = whole * 4; i < len; i++) if (p[at + i] !== bytes[i]) return false;
  return true;
}

function hash(p: Uint8Array, at: number, len: number): number {
  let h = 0x811c9dc5;
  for (let i = at; i < at + len; i++) h = Math.imul(h ^ (p[i] as number), 0x01000193);
  return h;
}
