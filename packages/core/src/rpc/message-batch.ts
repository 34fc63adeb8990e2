/** Gathers a stream's messages into one BATCH frame (PROTOCOL.md §5.2). */
import type { MessageCodec } from "../codec.js";
import { BATCH_ENTRY_HEAD_BYTES, BATCH_HEAD_BYTES, putU32 } from "./envelope.js";

/**
 * The messages of one call waiting to go out as one BATCH payload: `bytes[0 … length)` is the
 * call id, then each message as (u32 length, bytes). Messages are encoded straight into it
 * (`encodeIntoRange` / `encodeInto`, else `encode` and a copy), so a message costs no buffer
 * of its own; the frame is copied once into the channel when it is sent.
 */
export class MessageBatch {
  callId = 0;
  count = 0;
  length = BATCH_HEAD_BYTES;
  /** Allocated at the first message (a connection that never streams holds none). */
  bytes: Uint8Array = EMPTY;

  /** `capacity`: the largest payload, at most the peer's frame limit. */
  constructor(readonly capacity: number) {}

  /** Bytes still free for one more message (its length field excluded). */
  get room(): number {
    return this.capacity - this.length - BATCH_ENTRY_HEAD_BYTES;
  }

  /**
   * Appends `value`, encoded, as a message of `callId` (the batch is empty or holds messages of
   * that call). Returns its encoded size, or -1 when it does not fit in what is left, the codec
   * failed, or it is above `maxBytes`: nothing was appended, and the caller sends it another way,
   * which reports the codec's error.
   */
  add(callId: number, codec: MessageCodec<unknown>, value: unknown, maxBytes: number): number {
    if (this.bytes.length === 0) this.bytes = new Uint8Array(this.capacity);
    const bytes = this.bytes;
    const at = this.length + BATCH_ENTRY_HEAD_BYTES;
    const end = this.capacity;
    if (at >= end) return -1;
    let n: number;
    try {
      if (codec.encodeIntoRange !== undefined) n = codec.encodeIntoRange(value, bytes, at, end);
      else if (codec.encodeInto !== undefined) n = codec.encodeInto(value, bytes, at);
      else {
        const encoded = codec.encode(value);
        n = encoded.byteLength;
        if (n <= end - at) bytes.set(encoded, at);
      }
    } catch {
      return -1;
    }
    if (n < 0 || n > maxBytes || n > end - at) return -1;
    putU32(bytes, this.length, n);
    if (this.count === 0) {
      putU32(bytes, 0, callId);
      this.callId = callId;
    }
    this.length = at + n;
    this.count++;
    return n;
  }

  /** Empties the batch; `keepBytes` false when a channel kept a view of them (a new buffer then). */
  reset(keepBytes: boolean): void {
    this.count = 0;
    this.length = BATCH_HEAD_BYTES;
    if (!keepBytes) this.bytes = EMPTY;
  }
}

const EMPTY = new Uint8Array(0);
