/**
 * HPACK header compression (RFC 7541) for the HTTP/2 engine: {@link HpackEncoder} (one per
 * connection, for the header blocks we send) and {@link HpackDecoder} (one per connection, for the
 * blocks we receive).
 *
 * Field representations, first octet (RFC 7541 §6); `N+` = an integer with an N-bit prefix:
 *
 * ```
 *   0   1   2   3   4   5   6   7
 * +---+---+---+---+---+---+---+---+
 * | 1 |        index (7+)         |  indexed field (§6.1); index 0 is invalid
 * +---+---+-----------------------+
 * | 0 | 1 |   name index (6+)     |  literal with incremental indexing (§6.2.1): added to the table
 * +---+---+---+---+---------------+
 * | 0 | 0 | 0 | 0 |name index (4+)|  literal without indexing (§6.2.2)
 * +---+---+---+---+---------------+
 * | 0 | 0 | 0 | 1 |name index (4+)|  literal never indexed (§6.2.3)
 * +---+---+---+-------------------+
 * | 0 | 0 | 1 |  max size (5+)    |  dynamic table size update (§6.3); only at the block start
 * +---+---+---+-------------------+
 * ```
 *
 * A literal's name index 0 means a name string follows; then the value string. A string (§5.2)
 * is `H (1 bit) | length (7+)` then `length` octets, Huffman-coded when H = 1. An integer (§5.1)
 * with an N-bit prefix fits in the prefix when below 2^N - 1; otherwise the prefix is all 1s and
 * the rest follows in 7-bit groups, least significant first, the high bit set on all but the last.
 *
 * Index 1..61 is the static table, 62.. the dynamic table, newest entry first. An entry costs
 * name + value + 32 octets (§4.1); adding one evicts the oldest until it fits (§4.4).
 */

import { HpackError } from "./hpack-error.js";
import { huffmanDecode, latin1String } from "./hpack-huffman.js";
import { STATIC_NAMES, STATIC_TABLE_LENGTH, STATIC_VALUES } from "./hpack-static-table.js";

export { HpackError } from "./hpack-error.js";

/** Per-entry overhead in the dynamic table size (RFC 7541 §4.1), octets. */
const ENTRY_OVERHEAD = 32;
/** Largest integer accepted in a block (2^31 - 1); larger is malformed. */
const MAX_INTEGER = 0x7fffffff;
/** Continuation octets accepted after an integer prefix: 31 bits need 5. */
const MAX_INTEGER_CONTINUATIONS = 5;
/** The encoder's own cap on its dynamic table, octets, whatever the peer allows. */
const ENCODER_MAX_TABLE_BYTES = 4096;
/** Values longer than this, in octets, are sent without indexing. */
const ENCODER_MAX_INDEXED_VALUE = 512;
/** Header names whose values change on every call: sent without indexing. */
const NOT_INDEXED_NAMES = [
  "grpc-timeout",
  "grpc-message",
  "grpc-status-details-bin",
  "content-length",
  "date",
];

/**
 * The dynamic table (RFC 7541 §2.3.2): a ring of entries addressed by insertion number `seq`
 * (the n-th insertion has seq n - 1, stored at slot `seq & mask`). Dynamic index 0 is the
 * newest entry. The ring doubles when full; eviction is the caller's loop over {@link evict}.
 */
class DynamicTable {
  private names: string[] = new Array<string>(16).fill("");
  private values: string[] = new Array<string>(16).fill("");
  private mask = 15;
  /** Entries in the table. */
  length = 0;
  /** Table size, octets (name + value + 32 per entry). */
  bytes = 0;
  /** Insertions so far; the newest entry has seq `inserted - 1`, the oldest `inserted - length`. */
  inserted = 0;

  constructor(
    /** The most `bytes` may reach, octets. */
    public maxBytes: number,
  ) {}

  /** Name of the entry at dynamic index `i` (0 = newest; must be < length). */
  name(i: number): string {
    return this.names[(this.inserted - 1 - i) & this.mask] as string;
  }

  /** Value of the entry at dynamic index `i` (0 = newest; must be < length). */
  value(i: number): string {
    return this.values[(this.inserted - 1 - i) & this.mask] as string;
  }

  /** Removes the oldest entry (the table must not be empty). */
  evict(): void {
    const slot = (this.inserted - this.length) & this.mask;
    this.bytes -=
      (this.names[slot] as string).length + (this.values[slot] as string).length + ENTRY_OVERHEAD;
    this.names[slot] = "";
    this.values[slot] = "";
    this.length--;
  }

  /** Appends an entry of `size` octets; the caller has made room. */
  push(name: string, value: string, size: number): void {
    if (this.length === this.names.length) this.grow();
    const slot = this.inserted & this.mask;
    this.names[slot] = name;
    this.values[slot] = value;
    this.inserted++;
    this.length++;
    this.bytes += size;
  }

  private grow(): void {
    const capacity = this.names.length * 2;
    const names = new Array<string>(capacity).fill("");
    const values = new Array<string>(capacity).fill("");
    const mask = capacity - 1;
    for (let seq = this.inserted - this.length; seq < this.inserted; seq++) {
      names[seq & mask] = this.names[seq & this.mask] as string;
      values[seq & mask] = this.values[seq & this.mask] as string;
    }
    this.names = names;
    this.values = values;
    this.mask = mask;
  }
}

/** Options of {@link HpackDecoder}. */
export interface HpackDecoderOptions {
  /**
   * Our SETTINGS_HEADER_TABLE_SIZE, octets: the initial dynamic table size and the most a size
   * update may set. Default 4096.
   */
  maxTableBytes?: number;
  /**
   * Largest header list accepted, octets, counted as RFC 9113 §6.5.2 does: name + value + 32 per
   * field. Default 65536.
   */
  maxHeaderListBytes?: number;
}

/**
 * Decodes header blocks (RFC 7541) from one peer; holds that connection's decoding dynamic table,
 * so every block of the connection must go through it, in order.
 */
export class HpackDecoder {
  private readonly maxTableBytes: number;
  private readonly maxHeaderListBytes: number;
  private readonly table: DynamicTable;
  /** Read position in the block being decoded. */
  private pos = 0;
  /** Set by an error that leaves the table out of sync: every later call throws. */
  private failed = false;

  constructor(options?: HpackDecoderOptions) {
    this.maxTableBytes = options?.maxTableBytes ?? 4096;
    this.maxHeaderListBytes = options?.maxHeaderListBytes ?? 65536;
    this.table = new DynamicTable(this.maxTableBytes);
  }

  /** Current dynamic table size, octets (RFC 7541 §4.1). For tests and diagnostics. */
  get tableBytes(): number {
    return this.table.bytes;
  }

  /** Number of entries in the dynamic table. For tests and diagnostics. */
  get tableLength(): number {
    return this.table.length;
  }

  /**
   * The dynamic table entry at `index` (1 = newest, as HPACK index `61 + index`) as
   * `[name, value]`, or undefined past the end. For tests and diagnostics.
   */
  tableEntry(index: number): readonly [string, string] | undefined {
    if (!Number.isInteger(index) || index < 1 || index > this.table.length) return undefined;
    return [this.table.name(index - 1), this.table.value(index - 1)];
  }

  /**
   * Decodes one complete header block `block[start, end)` and calls `emit(name, value)` per
   * field, in order. Throws {@link HpackError}. When the list passes `maxHeaderListBytes` it still
   * decodes the whole block (keeping the dynamic table in sync) but stops emitting, and throws
   * `"header-list-too-large"` at the end; the decoder stays usable. Any other error (or an
   * exception from `emit`) leaves the decoder unusable: later calls throw `"malformed"`. A range
   * outside `block` is a RangeError (a caller bug; the decoder stays usable).
   */
  decode(
    block: Uint8Array,
    start: number,
    end: number,
    emit: (name: string, value: string) => void,
  ): void {
    if (this.failed) throw new HpackError("malformed", "HPACK decoder failed on an earlier block");
    if (!(start >= 0 && start <= end && end <= block.length)) {
      throw new RangeError(`bad block range [${start}, ${end}) of ${block.length} bytes`);
    }
    let tooLarge = false;
    try {
      tooLarge = this.decodeFields(block, start, end, emit);
    } catch (error) {
      this.failed = true;
      throw error;
    }
    if (tooLarge) {
      throw new HpackError(
        "header-list-too-large",
        `header list larger than ${this.maxHeaderListBytes} bytes`,
      );
    }
  }

  /** The decode loop; returns true when the list passed maxHeaderListBytes. */
  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one branch per RFC 7541 §6 field representation, in one loop
  private decodeFields(
    block: Uint8Array,
    start: number,
    end: number,
    emit: (name: string, value: string) => void,
  ): boolean {
    const table = this.table;
    const maxList = this.maxHeaderListBytes;
    let listBytes = 0;
    let fieldSeen = false;
    this.pos = start;
    while (this.pos < end) {
      const first = block[this.pos] as number;
      let name: string;
      let value: string;
      if (first >= 0x80) {
        const index = this.readInteger(block, end, 7);
        if (index === 0) throw new HpackError("malformed", "indexed field with index 0");
        if (index <= STATIC_TABLE_LENGTH) {
          name = STATIC_NAMES[index] as string;
          value = STATIC_VALUES[index] as string;
        } else {
          const i = index - STATIC_TABLE_LENGTH - 1;
          if (i >= table.length) throw new HpackError("malformed", `index ${index} past the table`);
          name = table.name(i);
          value = table.value(i);
        }
      } else if (first >= 0x40) {
        const index = this.readInteger(block, end, 6);
        name = index === 0 ? this.readString(block, end) : this.nameAt(index);
        value = this.readString(block, end);
        const size = name.length + value.length + ENTRY_OVERHEAD;
        if (size > table.maxBytes) {
          while (table.length > 0) table.evict();
        } else {
          while (table.bytes + size > table.maxBytes) table.evict();
          table.push(name, value, size);
        }
      } else if (first >= 0x20) {
        if (fieldSeen) throw new HpackError("malformed", "table size update after a field");
        const size = this.readInteger(block, end, 5);
        if (size > this.maxTableBytes) {
          throw new HpackError(
            "table-size",
            `table size update to ${size} above the limit ${this.maxTableBytes}`,
          );
        }
        table.maxBytes = size;
        while (table.bytes > size) table.evict();
        continue;
      } else {
        const index = this.readInteger(block, end, 4);
        name = index === 0 ? this.readString(block, end) : this.nameAt(index);
        value = this.readString(block, end);
      }
      fieldSeen = true;
      listBytes += name.length + value.length + ENTRY_OVERHEAD;
      if (listBytes <= maxList) emit(name, value);
    }
    return listBytes > maxList;
  }

  /** The name at HPACK index `index` (> 0) of a literal field. */
  private nameAt(index: number): string {
    if (index <= STATIC_TABLE_LENGTH) return STATIC_NAMES[index] as string;
    const i = index - STATIC_TABLE_LENGTH - 1;
    if (i >= this.table.length) {
      throw new HpackError("malformed", `name index ${index} past the table`);
    }
    return this.table.name(i);
  }

  /** Reads an integer with a `bits`-bit prefix at `this.pos` (< end) (RFC 7541 §5.1). */
  private readInteger(block: Uint8Array, end: number, bits: number): number {
    let pos = this.pos;
    const mask = (1 << bits) - 1;
    let value = (block[pos++] as number) & mask;
    if (value === mask) {
      let multiplier = 1;
      for (let count = 0; ; count++) {
        if (count === MAX_INTEGER_CONTINUATIONS) {
          throw new HpackError("malformed", "integer encoding too long");
        }
        if (pos >= end) throw new HpackError("malformed", "truncated integer");
        const octet = block[pos++] as number;
        value += (octet & 0x7f) * multiplier;
        if (octet < 0x80) break;
        multiplier *= 128;
      }
      if (value > MAX_INTEGER) throw new HpackError("malformed", "integer too large");
    }
    this.pos = pos;
    return value;
  }

  /** Reads a string literal at `this.pos` (RFC 7541 §5.2) as latin1. */
  private readString(block: Uint8Array, end: number): string {
    if (this.pos >= end) throw new HpackError("malformed", "truncated string");
    const huffman = (block[this.pos] as number) >= 0x80;
    const length = this.readInteger(block, end, 7);
    const start = this.pos;
    const stop = start + length;
    if (stop > end) throw new HpackError("malformed", "truncated string");
    this.pos = stop;
    return huffman ? huffmanDecode(block, start, stop) : latin1String(block, start, stop);
  }
}

/** What the encoder knows about one header name. */
interface NameInfo {
  /** First static table index with this name, or 0. */
  staticIndex: number;
  /** Static table index per value, for the names with static values; else null. */
  staticValues: Map<string, number> | null;
  /** Sent without indexing (values change on every call). */
  notIndexed: boolean;
  /** Kept when no dynamic entry has the name (static or not-indexed names). */
  permanent: boolean;
  /** Dynamic entries with this name: value → seq. */
  dynamic: Map<string, number> | null;
  /** Seq of the newest dynamic entry with this name (valid while not evicted), or -1. */
  newestSeq: number;
}

function staticNameInfos(): Map<string, NameInfo> {
  const infos = new Map<string, NameInfo>();
  for (let index = 1; index <= STATIC_TABLE_LENGTH; index++) {
    const name = STATIC_NAMES[index] as string;
    const value = STATIC_VALUES[index] as string;
    let info = infos.get(name);
    if (info === undefined) {
      info = {
        staticIndex: index,
        staticValues: null,
        notIndexed: false,
        permanent: true,
        dynamic: null,
        newestSeq: -1,
      };
      infos.set(name, info);
    }
    if (value !== "") {
      info.staticValues ??= new Map();
      info.staticValues.set(value, index);
    }
  }
  for (const name of NOT_INDEXED_NAMES) {
    const info = infos.get(name);
    if (info === undefined) {
      infos.set(name, {
        staticIndex: 0,
        staticValues: null,
        notIndexed: true,
        permanent: true,
        dynamic: null,
        newestSeq: -1,
      });
    } else {
      info.notIndexed = true;
    }
  }
  return infos;
}

/**
 * Encodes header blocks (RFC 7541) to one peer; holds that connection's encoding dynamic table,
 * so the blocks must be sent in the order they were encoded.
 *
 * Per field: an exact static match, or a name + value in the dynamic table, is an indexed field;
 * otherwise a literal (name indexed when a table has it) with incremental indexing, except for
 * `grpc-timeout`, `grpc-message`, `grpc-status-details-bin`, `content-length`, `date`, values over
 * 512 octets and entries bigger than the table: those are literals without indexing. Strings are
 * sent raw (H = 0), as latin1. The table is at most 4096 octets and at most the peer's
 * SETTINGS_HEADER_TABLE_SIZE.
 */
export class HpackEncoder {
  private readonly table = new DynamicTable(ENCODER_MAX_TABLE_BYTES);
  private readonly infos = staticNameInfos();
  private buffer: Buffer = Buffer.allocUnsafe(1024);
  /** A table size change not yet signaled to the peer. */
  private sizeUpdatePending = false;
  /** The smallest table size since the last signaled one (RFC 7541 §4.2), octets. */
  private sizeUpdateMin = 0;

  /** Current dynamic table size, octets (RFC 7541 §4.1). For tests and diagnostics. */
  get tableBytes(): number {
    return this.table.bytes;
  }

  /** Number of entries in the dynamic table. For tests and diagnostics. */
  get tableLength(): number {
    return this.table.length;
  }

  /**
   * Applies the peer's SETTINGS_HEADER_TABLE_SIZE `n` (octets; default 4096): the encoder's table
   * never exceeds it (nor 4096). When the resulting limit changes, the table is trimmed now and
   * the next block starts with a dynamic table size update (the smallest limit since the last
   * block first, when it was smaller, as RFC 7541 §4.2 requires).
   */
  setPeerMaxTableBytes(n: number): void {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`bad header table size ${n}`);
    const limit = Math.min(n, ENCODER_MAX_TABLE_BYTES);
    const table = this.table;
    if (limit === table.maxBytes) return;
    this.sizeUpdateMin = this.sizeUpdatePending ? Math.min(this.sizeUpdateMin, limit) : limit;
    this.sizeUpdatePending = true;
    table.maxBytes = limit;
    while (table.bytes > limit) this.evict();
  }

  /**
   * Encodes `fields` (flat: name0, value0, name1, value1, ...; names lower-case ASCII, values
   * latin1) and returns a view of an internal buffer holding the block, valid until the next
   * call (the caller copies it).
   */
  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one branch per RFC 7541 §6 field representation the encoder picks
  encode(fields: readonly string[]): Uint8Array {
    const count = fields.length - (fields.length & 1);
    let need = 12;
    for (let i = 0; i < count; i++) need += (fields[i] as string).length + 9;
    if (this.buffer.length < need) {
      this.buffer = Buffer.allocUnsafe(Math.max(need, this.buffer.length * 2));
    }
    const buf = this.buffer;
    const table = this.table;
    let pos = 0;
    if (this.sizeUpdatePending) {
      this.sizeUpdatePending = false;
      if (this.sizeUpdateMin < table.maxBytes) {
        pos = writeInteger(buf, pos, 0x20, 31, this.sizeUpdateMin);
      }
      pos = writeInteger(buf, pos, 0x20, 31, table.maxBytes);
    }
    for (let i = 0; i < count; i += 2) {
      const name = fields[i] as string;
      const value = fields[i + 1] as string;
      const info = this.infos.get(name);
      let nameIndex = 0;
      let notIndexed = false;
      if (info !== undefined) {
        if (info.staticValues !== null) {
          const index = info.staticValues.get(value);
          if (index !== undefined) {
            pos = writeInteger(buf, pos, 0x80, 127, index);
            continue;
          }
        }
        if (info.dynamic !== null) {
          const seq = info.dynamic.get(value);
          if (seq !== undefined) {
            pos = writeInteger(buf, pos, 0x80, 127, STATIC_TABLE_LENGTH + table.inserted - seq);
            continue;
          }
        }
        if (info.staticIndex !== 0) nameIndex = info.staticIndex;
        else if (info.newestSeq >= table.inserted - table.length) {
          nameIndex = STATIC_TABLE_LENGTH + table.inserted - info.newestSeq;
        }
        notIndexed = info.notIndexed;
      }
      const size = name.length + value.length + ENTRY_OVERHEAD;
      if (notIndexed || value.length > ENCODER_MAX_INDEXED_VALUE || size > table.maxBytes) {
        pos = writeInteger(buf, pos, 0x00, 15, nameIndex);
        if (nameIndex === 0) pos = writeString(buf, pos, name);
        pos = writeString(buf, pos, value);
      } else {
        pos = writeInteger(buf, pos, 0x40, 63, nameIndex);
        if (nameIndex === 0) pos = writeString(buf, pos, name);
        pos = writeString(buf, pos, value);
        this.insert(name, value, size);
      }
    }
    return buf.subarray(0, pos);
  }

  /** Adds an entry of `size` octets (≤ the table max), evicting as needed, and indexes it. */
  private insert(name: string, value: string, size: number): void {
    const table = this.table;
    while (table.bytes + size > table.maxBytes) this.evict();
    const seq = table.inserted;
    table.push(name, value, size);
    let info = this.infos.get(name);
    if (info === undefined) {
      info = {
        staticIndex: 0,
        staticValues: null,
        notIndexed: false,
        permanent: false,
        dynamic: null,
        newestSeq: -1,
      };
      this.infos.set(name, info);
    }
    info.dynamic ??= new Map();
    info.dynamic.set(value, seq);
    info.newestSeq = seq;
  }

  /** Evicts the oldest entry and forgets it in the look-up maps. */
  private evict(): void {
    const table = this.table;
    const oldest = table.length - 1;
    const name = table.name(oldest);
    const value = table.value(oldest);
    const seq = table.inserted - table.length;
    table.evict();
    const info = this.infos.get(name);
    if (info === undefined || info.dynamic === null) return;
    if (info.dynamic.get(value) === seq) info.dynamic.delete(value);
    if (info.dynamic.size === 0 && !info.permanent) this.infos.delete(name);
  }
}

/**
 * Writes `value` as an integer with prefix mask `mask` (2^N - 1) and first-octet flags `flags`
 * (RFC 7541 §5.1); returns the new position. The caller has made room (at most 6 octets).
 */
function writeInteger(
  buf: Uint8Array,
  pos: number,
  flags: number,
  mask: number,
  value: number,
): number {
  if (value < mask) {
    buf[pos++] = flags | value;
    return pos;
  }
  buf[pos++] = flags | mask;
  let rest = value - mask;
  while (rest >= 128) {
    buf[pos++] = (rest & 0x7f) | 0x80;
    rest = Math.floor(rest / 128);
  }
  buf[pos++] = rest;
  return pos;
}

/** Writes `s` as a raw (H = 0) latin1 string literal; returns the new position. */
function writeString(buf: Buffer, pos: number, s: string): number {
  const length = s.length;
  pos = writeInteger(buf, pos, 0x00, 127, length);
  if (length > 32) return pos + buf.write(s, pos, length, "latin1");
  for (let i = 0; i < length; i++) buf[pos + i] = s.charCodeAt(i);
  return pos + length;
}
