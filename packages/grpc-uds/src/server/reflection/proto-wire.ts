/**
 * The protobuf wire format, just enough of it for server reflection: a reader and a writer.
 *
 * ```text
 * message = field*                      (any order; a repeated field may be split or packed)
 * field   = tag value
 * tag     = varint( number << 3 | wire type )      number ≥ 1
 *
 * wire type 0  varint      7 bits a byte, low group first, high bit = "more"; ≤ 10 bytes
 *                          (int32 -1 takes 10: negative int32 is sign-extended to 64 bits)
 * wire type 1  64-bit      8 bytes, little-endian
 * wire type 2  length      varint(n) then n bytes: string (UTF-8), bytes, message, packed
 * wire type 5  32-bit      4 bytes, little-endian
 * wire types 3, 4 (groups), 6, 7: not accepted here
 *
 * field 1 = "ab" →  0a 02 61 62        field 2 = 150 →  10 96 01
 * ```
 */
import { Code, NearwireError } from "@nearwire/core";

/** Wire type 0: varint. */
export const VARINT = 0;
/** Wire type 2: length-delimited. */
export const LENGTH_DELIMITED = 2;

/** The tag of field `number` with `wireType`, as read by {@link ProtoReader.tag}. */
export function tagOf(number: number, wireType: number): number {
  return ((number << 3) | wireType) >>> 0;
}

const utf8Decoder = new TextDecoder("utf-8", { fatal: true });
const utf8Encoder = new TextEncoder();
const MAX_FIELD_NUMBER = 0x1fffffff;

/**
 * Reads the fields of one message. Every malformed input (truncated value, varint over 10
 * bytes, field number 0, group or reserved wire type, invalid UTF-8 in a string) throws
 * {@link NearwireError} INVALID_ARGUMENT with reason `decode-failed`, naming `typeName`.
 */
export class ProtoReader {
  /** The offset of the next byte to read. */
  pos: number;

  /** Reads `bytes[start … end)` as a message of `typeName` (used in error messages). */
  constructor(
    readonly bytes: Uint8Array,
    readonly typeName: string,
    start = 0,
    readonly end: number = bytes.length,
  ) {
    this.pos = start;
  }

  /** True when every field has been read. */
  get done(): boolean {
    return this.pos >= this.end;
  }

  /** An INVALID_ARGUMENT `decode-failed` error about this message. */
  fail(what: string): NearwireError {
    return new NearwireError(Code.InvalidArgument, `${this.typeName}: ${what}`, {
      reason: "decode-failed",
    });
  }

  /** Reads the next tag (`number << 3 | wireType`) and checks its number and wire type. */
  tag(): number {
    const tag = this.uint32();
    const number = tag >>> 3;
    const wireType = tag & 7;
    if (number === 0 || number > MAX_FIELD_NUMBER) throw this.fail(`field number ${number}`);
    if (wireType !== 0 && wireType !== 1 && wireType !== 2 && wireType !== 5)
      throw this.fail(`field ${number} has unsupported wire type ${wireType}`);
    return tag;
  }

  /** Reads a varint of up to 10 bytes and returns its low 32 bits, unsigned. */
  uint32(): number {
    let value = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw this.fail("truncated varint");
      const b = this.bytes[this.pos++] as number;
      if (i < 5) value = (value | ((b & 0x7f) << (7 * i))) >>> 0;
      if ((b & 0x80) === 0) return value;
    }
    throw this.fail("varint over 10 bytes");
  }

  /** Reads an `int32` (a varint whose low 32 bits are the two's complement value). */
  int32(): number {
    return this.uint32() | 0;
  }

  /** Reads a length-delimited value and returns its `[start, end)` range in {@link bytes}. */
  range(): [start: number, end: number] {
    const length = this.uint32();
    if (length > this.end - this.pos) throw this.fail("truncated length-delimited field");
    const start = this.pos;
    this.pos += length;
    return [start, this.pos];
  }

  /** Reads a `bytes` value as a copy (never a view of the input). */
  bytesCopy(): Uint8Array {
    const [start, end] = this.range();
    // Not `slice`: on a Buffer that is a view.
    return new Uint8Array(this.bytes.subarray(start, end));
  }

  /** Reads a `string` value; invalid UTF-8 is a decode failure. */
  string(): string {
    const [start, end] = this.range();
    try {
      return utf8Decoder.decode(this.bytes.subarray(start, end));
    } catch {
      throw this.fail(`string at offset ${start} is not valid UTF-8`);
    }
  }

  /** A reader of the embedded message that follows, of type `typeName`. */
  message(typeName: string): ProtoReader {
    const [start, end] = this.range();
    return new ProtoReader(this.bytes, typeName, start, end);
  }

  /** Skips the value of a field of `wireType` (an unknown field). */
  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.uint32();
        return;
      case 1:
        this.advance(8);
        return;
      case 2:
        this.range();
        return;
      case 5:
        this.advance(4);
        return;
      default:
        throw this.fail(`unsupported wire type ${wireType}`);
    }
  }

  private advance(n: number): void {
    if (n > this.end - this.pos) throw this.fail("truncated fixed-width field");
    this.pos += n;
  }
}

/**
 * Writes the fields of one message, in the order called. It writes whatever it is asked to,
 * default values included: leaving proto3 defaults out is the caller's choice.
 */
export class ProtoWriter {
  private buf = new Uint8Array(64);
  private len = 0;

  /** Writes `uint32`/`enum`/non-negative `int32` `value` as field `number` (wire type 0). */
  uint32(number: number, value: number): this {
    this.rawVarint(tagOf(number, VARINT));
    this.rawVarint(value >>> 0);
    return this;
  }

  /** Writes `int32` `value` as field `number`; a negative value takes 10 bytes. */
  int32(number: number, value: number): this {
    this.rawVarint(tagOf(number, VARINT));
    if (value < 0) this.rawVarint64(value >>> 0, 0xffffffff);
    else this.rawVarint(value >>> 0);
    return this;
  }

  /** Writes `bool` `value` as field `number`. */
  bool(number: number, value: boolean): this {
    return this.uint32(number, value ? 1 : 0);
  }

  /** Writes `string` `value` as field `number`, UTF-8 encoded. */
  string(number: number, value: string): this {
    return this.bytes(number, utf8Encoder.encode(value));
  }

  /** Writes `bytes` (or an encoded embedded message) `value` as field `number`. */
  bytes(number: number, value: Uint8Array): this {
    this.rawVarint(tagOf(number, LENGTH_DELIMITED));
    this.rawVarint(value.byteLength);
    this.reserve(value.byteLength);
    this.buf.set(value, this.len);
    this.len += value.byteLength;
    return this;
  }

  /** Writes repeated `int32` `values` as one packed field `number` (nothing when empty). */
  packedInt32(number: number, values: readonly number[]): this {
    if (values.length === 0) return this;
    const packed = new ProtoWriter();
    for (const value of values) {
      if (value < 0) packed.rawVarint64(value >>> 0, 0xffffffff);
      else packed.rawVarint(value >>> 0);
    }
    return this.bytes(number, packed.finish());
  }

  /** The bytes written so far, as a new array. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }

  private rawVarint(value: number): void {
    this.reserve(5);
    let v = value;
    while (v > 0x7f) {
      this.buf[this.len++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.len++] = v;
  }

  private rawVarint64(low: number, high: number): void {
    this.reserve(10);
    let lo = low;
    let hi = high;
    while (hi !== 0 || lo > 0x7f) {
      this.buf[this.len++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    this.buf[this.len++] = lo;
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buf.subarray(0, this.len));
    this.buf = grown;
  }
}
