import { Code, NearwireError } from "@nearwire/core";
import {
  COMMITTED,
  CONTROL,
  HEADER_BYTES,
  maxPayloadFor,
  RECORD_HEADER_BYTES,
  RING_CONTROL_OFFSETS,
  TYPE_FRAGMENT,
  TYPE_PADDING,
} from "./ring-layout.js";

/*
 * One single-producer single-consumer ring (layout: ring-layout.ts, PROTOCOL.md section 6).
 *
 *   data: |rec|rec|rec|....free....|rec|rec|PAD.....|
 *              ^ consumer (tail)        ^ producer (head)
 *
 * The producer writes payload and type, zeroes the word after the record (so the consumer
 * stops there on the next lap), then stores the word with bit 31 set: that store publishes.
 * The consumer reads the word at its position; 0 means empty. Positions grow forever (u64 in
 * memory); both sides keep them as JS numbers (exact to 2^53) and compare them modulo 2^32,
 * which is exact because the capacity is at most 2^30.
 */

const TWO32 = 2 ** 32;

function storePosition(i32: Int32Array, index: number, position: number): void {
  Atomics.store(i32, index, (position % TWO32) | 0);
  i32[index + 1] = Math.floor(position / TWO32);
}

/** Fixed views and offsets of ring `ringIndex` of a segment. */
class RingBase {
  protected readonly u8: Uint8Array;
  protected readonly i32: Int32Array;
  protected readonly dataOffset: number;
  protected readonly mask: number;
  /** Capacity, bytes. */
  readonly capacity: number;
  /** Largest payload of one record, bytes. */
  readonly maxPayloadBytes: number;
  protected readonly producerPosIndex: number;
  protected readonly consumerPosIndex: number;
  protected readonly parkedIndex: number;
  protected readonly waitingIndex: number;

  constructor(
    readonly buffer: ArrayBufferLike,
    ringBytes: number,
    ringIndex: 0 | 1,
  ) {
    this.u8 = new Uint8Array(buffer);
    this.i32 = new Int32Array(buffer);
    this.capacity = ringBytes;
    this.mask = ringBytes - 1;
    this.maxPayloadBytes = maxPayloadFor(ringBytes);
    this.dataOffset = HEADER_BYTES + ringIndex * ringBytes;
    const control = RING_CONTROL_OFFSETS[ringIndex];
    this.producerPosIndex = (control + CONTROL.producerPosition) >> 2;
    this.consumerPosIndex = (control + CONTROL.consumerPosition) >> 2;
    this.parkedIndex = (control + CONTROL.consumerParked) >> 2;
    this.waitingIndex = (control + CONTROL.producerWaiting) >> 2;
  }
}

/** The producer side of a ring. */
export class RingWriter extends RingBase {
  private head = 0;
  private index = 0;
  private cachedTail = 0;

  /** Bytes written so far (the producer position). */
  get position(): number {
    return this.head;
  }

  /**
   * Writes one record if it fits, and returns false (writing nothing) if the ring is full.
   * The caller checks `payload.byteLength <= maxPayloadBytes` and `0x10 <= type <= 0xff`.
   */
  tryWrite(type: number, payload: Uint8Array): boolean {
    const n = payload.byteLength;
    const rec = (RECORD_HEADER_BYTES + n + 7) & ~7;
    const toEnd = this.capacity - this.index;
    const pad = rec > toEnd ? toEnd : 0;
    if (this.head + pad + rec + RECORD_HEADER_BYTES - this.cachedTail > this.capacity) {
      this.cachedTail = this.loadTail();
      if (this.head + pad + rec + RECORD_HEADER_BYTES - this.cachedTail > this.capacity)
        return false;
    }
    const start = pad === 0 ? this.index : 0;
    const at = this.dataOffset + start;
    const u8 = this.u8;
    u8.set(payload, at + RECORD_HEADER_BYTES);
    u8[at + 4] = type;
    this.i32[(this.dataOffset + ((start + rec) & this.mask)) >> 2] = 0;
    Atomics.store(this.i32, at >> 2, COMMITTED | n | 0);
    if (pad !== 0) {
      const padAt = this.dataOffset + this.index;
      u8[padAt + 4] = TYPE_PADDING;
      Atomics.store(this.i32, padAt >> 2, COMMITTED | (pad - RECORD_HEADER_BYTES) | 0);
    }
    this.head += pad + rec;
    this.index = (start + rec) & this.mask;
    this.i32[this.producerPosIndex] = this.head | 0;
    this.i32[this.producerPosIndex + 1] = (this.head / TWO32) | 0;
    return true;
  }

  /**
   * Lets `fill` write a record's payload in place at the current position, without wrapping:
   * `fill(dest, offset, limit)` writes at most `limit` bytes at `dest[offset…]` (dest is the
   * whole mapping) and returns how many, or -1. Publishes the record only when `fill`
   * succeeds; returns false (nothing published, nothing overwritten but free space) when there
   * is no contiguous room or `fill` gave up — the caller then uses `tryWrite`, which wraps.
   */
  tryWriteWith(
    type: number,
    maxPayload: number,
    fill: (dest: Uint8Array, offset: number, limit: number) => number,
  ): boolean {
    const toEnd = this.capacity - this.index;
    let free = this.capacity - (this.head - this.cachedTail);
    if (free < toEnd + RECORD_HEADER_BYTES) {
      this.cachedTail = this.loadTail();
      free = this.capacity - (this.head - this.cachedTail);
    }
    // The record header, the payload (8-byte aligned), and the next record's zeroed header.
    const room = (Math.min(toEnd, free - RECORD_HEADER_BYTES) - RECORD_HEADER_BYTES) & ~7;
    const limit = Math.min(room, maxPayload);
    if (limit <= 0) return false;
    const at = this.dataOffset + this.index;
    const n = fill(this.u8, at + RECORD_HEADER_BYTES, limit);
    if (!(n >= 0 && n <= limit)) return false;
    const rec = (RECORD_HEADER_BYTES + n + 7) & ~7;
    this.u8[at + 4] = type;
    this.i32[(this.dataOffset + ((this.index + rec) & this.mask)) >> 2] = 0;
    Atomics.store(this.i32, at >> 2, COMMITTED | n | 0);
    this.head += rec;
    this.index = (this.index + rec) & this.mask;
    this.i32[this.producerPosIndex] = this.head | 0;
    this.i32[this.producerPosIndex + 1] = (this.head / TWO32) | 0;
    return true;
  }

  /** True once if the consumer was parked: it clears the flag, and the caller rings the bell. */
  takeParked(): boolean {
    return (
      this.i32[this.parkedIndex] !== 0 &&
      Atomics.compareExchange(this.i32, this.parkedIndex, 1, 0) === 1
    );
  }

  /**
   * Says the producer waits for space, then re-checks: returns true if a record of
   * `payloadBytes` now fits (the flag is cleared again), false if the consumer will ring when
   * it frees space.
   */
  waitForSpace(payloadBytes: number): boolean {
    Atomics.store(this.i32, this.waitingIndex, 1);
    this.cachedTail = this.loadTail();
    const rec = (RECORD_HEADER_BYTES + payloadBytes + 7) & ~7;
    const toEnd = this.capacity - this.index;
    const pad = rec > toEnd ? toEnd : 0;
    if (this.head + pad + rec + RECORD_HEADER_BYTES - this.cachedTail <= this.capacity) {
      Atomics.store(this.i32, this.waitingIndex, 0);
      return true;
    }
    return false;
  }

  /** Clears the waiting flag (the queue drained). */
  clearWaiting(): void {
    if (this.i32[this.waitingIndex] !== 0) Atomics.store(this.i32, this.waitingIndex, 0);
  }

  private loadTail(): number {
    const lo = Atomics.load(this.i32, this.consumerPosIndex) >>> 0;
    const diff = ((this.head >>> 0) - lo) >>> 0;
    return this.head - diff;
  }
}

/** Callback for each record the reader delivers; `payload` is a view valid during the call. */
export type RecordSink = (type: number, payload: Uint8Array) => void;

/** The consumer side of a ring. */
export class RingReader extends RingBase {
  private tail = 0;
  private index = 0;
  /**
   * Largest frame this reader reassembles from fragment records (type 0x01), bytes; the
   * default, {@link maxPayloadBytes}, means one record per frame (a fragment is then corrupt).
   */
  maxFrameBytes = this.maxPayloadBytes;
  /** Copies of the fragments of the frame being reassembled, and their total bytes. */
  private pieces: Uint8Array[] = [];
  private pieceBytes = 0;

  /** Bytes consumed so far (the consumer position). */
  get position(): number {
    return this.tail;
  }

  /** True if a record is published at the consumer position. */
  hasData(): boolean {
    return Atomics.load(this.i32, (this.dataOffset + this.index) >> 2) !== 0;
  }

  /**
   * Delivers up to `max` records to `sink`, then publishes the consumer position (also when
   * `sink` throws: that record counts as consumed). Returns the number of records consumed
   * (a fragment counts; its frame reaches `sink` with its last piece, as one fresh array). One call
   * advances at most `capacity` bytes (padding included: it stops before a record that would
   * end past that), so no layout — a ring tiled with committed records, a producer that keeps
   * writing ahead of the reader — can keep it looping. Throws DATA_LOSS
   * (`malformed-frame` / `unknown-frame-type`) on a corrupt record, among them a padding
   * record at ring offset 0; records delivered before it stay consumed.
   */
  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the read path of PROTOCOL.md §6.3 (records, padding, fragments) in one loop, the ring's hot path
  read(sink: RecordSink, max: number): number {
    let count = 0;
    const start = this.tail;
    const end = start + this.capacity;
    try {
      while (count < max && this.tail < end) {
        const at = this.dataOffset + this.index;
        const word = Atomics.load(this.i32, at >> 2);
        if (word === 0) break;
        const n = word & 0x7fffffff;
        const type = this.u8[at + 4] as number;
        if (word > 0 || this.index + RECORD_HEADER_BYTES + n > this.capacity) {
          throw this.corrupt(
            `record word 0x${(word >>> 0).toString(16)} at ring offset ${this.index} runs past the ring (${this.capacity} B)`,
            "malformed-frame",
          );
        }
        if (type === TYPE_PADDING) {
          // A producer pads only when a record does not fit before the end, so never at 0.
          if (this.index === 0 || this.index + RECORD_HEADER_BYTES + n !== this.capacity) {
            throw this.corrupt(
              `padding of ${n} B at ring offset ${this.index} does not end the ring (${this.capacity} B) or starts it`,
              "malformed-frame",
            );
          }
          if (this.tail + n + RECORD_HEADER_BYTES > end) break;
          this.tail += this.capacity - this.index;
          this.index = 0;
          continue;
        }
        if (type < 0x10 && type !== TYPE_FRAGMENT)
          throw this.corrupt(
            `record type 0x${type.toString(16)} at ring offset ${this.index}`,
            "unknown-frame-type",
          );
        if (n > this.maxPayloadBytes) {
          throw this.corrupt(
            `record of ${n} B > maxPayloadBytes ${this.maxPayloadBytes}`,
            "malformed-frame",
          );
        }
        const rec = (RECORD_HEADER_BYTES + n + 7) & ~7;
        if (this.tail + rec > end) break;
        this.tail += rec;
        this.index = (this.index + rec) & this.mask;
        count++;
        if (type === TYPE_FRAGMENT || this.pieceBytes !== 0) {
          const frame = this.reassemble(type, at + RECORD_HEADER_BYTES, n);
          if (frame !== undefined) sink(type, frame);
          continue;
        }
        sink(type, new Uint8Array(this.buffer, at + RECORD_HEADER_BYTES, n));
      }
    } finally {
      if (this.tail !== start) storePosition(this.i32, this.consumerPosIndex, this.tail);
    }
    return count;
  }

  /**
   * A fragment (type 0x01: keeps a copy, returns undefined) or the last piece of a fragmented
   * frame (returns the whole frame). Throws DATA_LOSS `malformed-frame` for an empty fragment or
   * a frame over {@link maxFrameBytes}.
   */
  private reassemble(type: number, at: number, n: number): Uint8Array | undefined {
    if (this.pieceBytes + n > this.maxFrameBytes || (type === TYPE_FRAGMENT && n === 0)) {
      const bytes = this.pieceBytes + n;
      this.pieces = [];
      this.pieceBytes = 0;
      throw this.corrupt(
        n === 0
          ? "empty fragment record"
          : `fragmented frame of ${bytes}+ B > maxFrameBytes ${this.maxFrameBytes}`,
        "malformed-frame",
      );
    }
    if (type === TYPE_FRAGMENT) {
      this.pieces.push(this.u8.slice(at, at + n));
      this.pieceBytes += n;
      return undefined;
    }
    const frame = new Uint8Array(this.pieceBytes + n);
    let off = 0;
    for (const p of this.pieces) {
      frame.set(p, off);
      off += p.byteLength;
    }
    frame.set(this.u8.subarray(at, at + n), off);
    this.pieces = [];
    this.pieceBytes = 0;
    return frame;
  }

  /** True once if the producer waited for space: it clears the flag, and the caller rings. */
  takeWaiting(): boolean {
    return (
      this.i32[this.waitingIndex] !== 0 &&
      Atomics.compareExchange(this.i32, this.waitingIndex, 1, 0) === 1
    );
  }

  /**
   * Sets the parked flag, then re-checks: returns true if it may sleep (the producer will ring),
   * false if a record arrived meanwhile (the flag is cleared again).
   */
  park(): boolean {
    Atomics.store(this.i32, this.parkedIndex, 1);
    if (this.hasData()) {
      Atomics.store(this.i32, this.parkedIndex, 0);
      return false;
    }
    return true;
  }

  /** Clears the parked flag (woken). */
  unpark(): void {
    if (this.i32[this.parkedIndex] !== 0) Atomics.store(this.i32, this.parkedIndex, 0);
  }

  private corrupt(
    message: string,
    reason: "malformed-frame" | "unknown-frame-type",
  ): NearwireError {
    return new NearwireError(Code.DataLoss, `shm-ring: corrupt ${message}`, { reason });
  }
}
