/** A FlatBuffers buffer verifier: bounds and offsets checked before a table is read. */
import { Code, NearwireError } from "@nearwire/core";

/*
 * What the verifier checks, in the FlatBuffers binary format
 * (https://flatbuffers.dev/internals/), all integers little-endian:
 *
 *   buffer:  [u32 root uoffset] ... root table ... vtables ... strings / vectors ...
 *
 *   table at T:   [i32 soffset]  vtable V = T - soffset
 *                 [inline fields ...]          T + tableSize <= buffer length
 *   vtable at V:  [u16 vtableSize] [u16 tableSize] [u16 fieldOffset] * ((vtableSize - 4) / 2)
 *                 a field at voffset v (4, 6, 8, ...) is absent when v >= vtableSize or its
 *                 fieldOffset is 0; otherwise it lies at T + fieldOffset, inside the table
 *   uoffset at P: [u32 o]   target P + o (strings, vectors, sub-tables), forward only
 *   string at S:  [u32 n] [n bytes UTF-8] [0x00]
 *   vector at W:  [u32 n] [n * elementSize bytes]
 *
 * flatbuffers' JS reader reads vtable sizes and field offsets as signed 16-bit and uoffsets and
 * lengths as signed 32-bit; the verifier rejects values that the reader would see as negative.
 * Alignment is not checked: the JS reader reads byte by byte.
 */

/** Limits of a {@link FlatbuffersVerifier}. */
export interface FlatbuffersVerifierOptions {
  /** Deepest nesting of tables accepted (default 64, as in the C++ verifier). */
  readonly maxDepth?: number;
  /** Most tables accepted in one buffer (default 1,000,000, as in the C++ verifier). */
  readonly maxTables?: number;
}

/**
 * A bounds-checking verifier for FlatBuffers input, written for nearwire because the `flatbuffers`
 * JS library has none (its reader returns `undefined`-derived zeros or garbage for offsets outside
 * the buffer). A {@link FlatbuffersTable}'s `verify` calls it for every field it will read; after
 * that, every read the generated accessors make lies inside the buffer and inside its object.
 * Every failed check throws {@link NearwireError} INVALID_ARGUMENT `decode-failed`.
 */
export class FlatbuffersVerifier {
  private readonly view: DataView;
  private readonly length: number;
  private readonly maxDepth: number;
  private readonly maxTables: number;
  private tables = 0;
  private depth = 0;

  /** Verifies `bytes`, a whole FlatBuffer (not size-prefixed). */
  constructor(bytes: Uint8Array, options: FlatbuffersVerifierOptions = {}) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.length = bytes.byteLength;
    this.maxDepth = options.maxDepth ?? 64;
    this.maxTables = options.maxTables ?? 1_000_000;
  }

  /** Checks the root uoffset and the root table's header; returns the root table position. */
  rootTable(): number {
    this.need(0, 4, "root");
    return this.table(this.uoffset(0, "root"));
  }

  /**
   * Checks the table at `pos`: its vtable lies in the buffer, and so does its inline part.
   * Returns `pos`.
   */
  table(pos: number): number {
    if (++this.tables > this.maxTables) this.fail(`more than ${this.maxTables} tables`);
    this.need(pos, 4, "table");
    const vtable = pos - this.view.getInt32(pos, true);
    this.need(vtable, 4, "vtable");
    const vtableSize = this.view.getUint16(vtable, true);
    const tableSize = this.view.getUint16(vtable + 2, true);
    if (vtableSize < 4 || vtableSize > 0x7ffe || (vtableSize & 1) !== 0)
      this.fail(`vtable size ${vtableSize}`);
    this.need(vtable, vtableSize, "vtable");
    if (tableSize < 4) this.fail(`table size ${tableSize}`);
    this.need(pos, tableSize, "table");
    return pos;
  }

  /**
   * Checks the scalar (or struct) field at `voffset` (4, 6, 8, ... as in generated code) of the
   * table at `table`: absent, or `size` bytes inside the table. Returns its position or 0.
   */
  field(table: number, voffset: number, size: number): number {
    const vtable = table - this.view.getInt32(table, true);
    if (voffset >= this.view.getUint16(vtable, true)) return 0;
    const fieldOffset = this.view.getUint16(vtable + voffset, true);
    if (fieldOffset === 0) return 0;
    const tableSize = this.view.getUint16(vtable + 2, true);
    if (fieldOffset < 4 || fieldOffset > 0x7fff || fieldOffset + size > tableSize) {
      this.fail(
        `field at voffset ${voffset}: offset ${fieldOffset} + ${size} B outside table of ${tableSize} B`,
      );
    }
    return table + fieldOffset;
  }

  /** Checks a string field: absent, or length, bytes and NUL terminator inside the buffer. */
  string(table: number, voffset: number): void {
    const at = this.field(table, voffset, 4);
    if (at !== 0) this.stringAt(this.uoffset(at, "string"));
  }

  /**
   * Checks a vector field of `elementSize`-byte scalars: absent, or its length and elements
   * inside the buffer. Returns the vector's position (at its length) or 0.
   */
  vector(table: number, voffset: number, elementSize: number): number {
    const at = this.field(table, voffset, 4);
    if (at === 0) return 0;
    const vec = this.uoffset(at, "vector");
    this.vectorAt(vec, elementSize);
    return vec;
  }

  /** Checks a vector-of-strings field and every string in it. */
  vectorOfStrings(table: number, voffset: number): void {
    const vec = this.vector(table, voffset, 4);
    if (vec === 0) return;
    const n = this.view.getUint32(vec, true);
    for (let i = 0; i < n; i++) this.stringAt(this.uoffset(vec + 4 + 4 * i, "string"));
  }

  /** Checks a vector-of-tables field; `verifyTable` checks each element's fields. */
  vectorOfTables(
    table: number,
    voffset: number,
    verifyTable: (v: this, table: number) => void,
  ): void {
    const vec = this.vector(table, voffset, 4);
    if (vec === 0) return;
    const n = this.view.getUint32(vec, true);
    for (let i = 0; i < n; i++) this.nested(this.uoffset(vec + 4 + 4 * i, "table"), verifyTable);
  }

  /** Checks a sub-table field; `verifyTable` checks its fields. */
  subTable(table: number, voffset: number, verifyTable: (v: this, table: number) => void): void {
    const at = this.field(table, voffset, 4);
    if (at !== 0) this.nested(this.uoffset(at, "table"), verifyTable);
  }

  private nested(pos: number, verifyTable: (v: this, table: number) => void): void {
    if (++this.depth > this.maxDepth) this.fail(`tables nested deeper than ${this.maxDepth}`);
    verifyTable(this, this.table(pos));
    this.depth--;
  }

  private stringAt(pos: number): void {
    this.need(pos, 4, "string");
    const n = this.view.getUint32(pos, true);
    if (n > this.length - pos - 5) this.fail(`string of ${n} B at ${pos} past the end`);
    if (this.view.getUint8(pos + 4 + n) !== 0) this.fail(`string at ${pos} not NUL-terminated`);
  }

  private vectorAt(pos: number, elementSize: number): void {
    this.need(pos, 4, "vector");
    const n = this.view.getUint32(pos, true);
    if (n > (this.length - pos - 4) / elementSize)
      this.fail(`vector of ${n} x ${elementSize} B at ${pos} past the end`);
  }

  private uoffset(at: number, what: string): number {
    this.need(at, 4, what);
    const o = this.view.getUint32(at, true);
    if (o === 0 || o > 0x7fffffff) this.fail(`${what} offset ${o} at ${at}`);
    return at + o;
  }

  private need(pos: number, size: number, what: string): void {
    if (pos < 0 || size < 0 || pos + size > this.length) {
      this.fail(`${what} at ${pos} + ${size} B outside buffer of ${this.length} B`);
    }
  }

  private fail(message: string): never {
    throw new NearwireError(Code.InvalidArgument, `flatbuffers verify failed: ${message}`, {
      reason: "decode-failed",
    });
  }
}
