/** A server's methods, found by the path bytes of a REQUEST without a string per call. */
import type { BoundMethod } from "./bound-method.js";

/** A served method: its binding and its handler. */
export interface ServedMethod {
  readonly bound: BoundMethod;
  readonly impl: (input: unknown, ctx: never) => unknown;
}

/**
 * The methods of a server, found by the UTF-8 path bytes of a REQUEST without building a
 * string per call: an FNV-1a hash of the bytes picks a bucket, and the bytes are compared.
 */
export class MethodTable {
  private readonly byHash = new Map<number, ServedMethod[]>();
  private readonly byPath = new Map<string, ServedMethod>();
  /** The method {@link lookup} found last. */
  private last: ServedMethod | undefined = undefined;

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
    const h = hash(bytes, 0, bytes.byteLength);
    const bucket = this.byHash.get(h);
    if (bucket === undefined) this.byHash.set(h, [method]);
    else bucket.push(method);
  }

  /**
   * The method whose path is `p[at … at+len)`, or undefined. The method found last is compared
   * first: calls on a connection mostly repeat a method, and a match then costs one compare of
   * the bytes instead of hashing them, a Map lookup and the compare.
   */
  lookup(p: Uint8Array, at: number, len: number): ServedMethod | undefined {
    const last = this.last;
    if (last !== undefined && samePath(last.bound.pathBytes, p, at, len)) return last;
    const bucket = this.byHash.get(hash(p, at, len));
    if (bucket === undefined) return undefined;
    for (const method of bucket) {
      if (samePath(method.bound.pathBytes, p, at, len)) {
        this.last = method;
        return method;
      }
    }
    return undefined;
  }
}

function samePath(bytes: Uint8Array, p: Uint8Array, at: number, len: number): boolean {
  if (bytes.byteLength !== len) return false;
  let i = 0;
  while (i < len && bytes[i] === p[at + i]) i++;
  return i === len;
}

function hash(p: Uint8Array, at: number, len: number): number {
  let h = 0x811c9dc5;
  for (let i = at; i < at + len; i++) h = Math.imul(h ^ (p[i] as number), 0x01000193);
  return h;
}
