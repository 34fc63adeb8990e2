/**
 * gRPC's Length-Prefixed-Message on a stream's DATA (gRPC over HTTP/2, "Requests"):
 *
 * ```
 * offset  size  field
 * 0       1     Compressed-Flag: 0 = as is, 1 = compressed with the stream's grpc-encoding
 * 1       4     Message-Length: unsigned big-endian
 * 5       n     Message
 * ```
 *
 * A message may span DATA frames, and a frame may hold several messages.
 */
import { Code, NearwireError } from "@nearwire/core";
import type { BufferPool } from "@nearwire/core/transport-kit";

/** Size of the prefix, bytes. */
export const MESSAGE_PREFIX_BYTES = 5;

/**
 * Receives each message: its compressed flag and bytes (the receiver may keep them: never a view
 * of the payload given to {@link MessageReader.push}), and
 * whether those bytes are a buffer of the reader's lending pool ({@link MessageReader.lendFrom}),
 * which the receiver gives back once done with them.
 */
export interface MessageSink {
  onMessage(compressed: boolean, bytes: Uint8Array, pooled: boolean): void;
}

/**
 * The bytes of unfinished messages one connection holds, across its streams: a peer that
 * announces large messages and sends them slowly, on many streams, is stopped here.
 */
export class BufferBudget {
  usedBytes = 0;
  constructor(readonly limitBytes: number) {}
}

/**
 * The budget of unfinished messages per connection: 8 messages of the largest size, and at
 * least 32 MiB.
 */
export function unfinishedMessageLimit(maxMessageBytes: number): number {
  return Math.max(32 * 1024 * 1024, 8 * maxMessageBytes);
}

/**
 * The first buffer of a message that spans payloads, when it is not taken at its whole size (a
 * smaller message gets one buffer of its size).
 */
const FIRST_CAPACITY_BYTES = 64 * 1024;

/**
 * A message that spans payloads gets its whole size at once while the connection's unfinished
 * messages, with it, take at most this fraction (1/n) of the budget: a half.
 */
const WHOLE_AT_ONCE_PARTS = 2;

/** From this size (4 KiB) a lending reader copies a message inside one payload into its pool. */
const POOLED_COPY_MIN_BYTES = 4096;

/**
 * Cuts messages out of DATA payloads, which are valid only during {@link push} (a socket read
 * into a reused buffer). Messages inside one payload are views of one copy of the rest of it
 * (one copy per payload, not one per message; with a lending pool, one of 4 KiB or more is
 * copied into a buffer of the pool instead); one that spans payloads is copied into one buffer
 * of its size, taken when its first bytes come (from the lending pool, if any). Only once the
 * connection's unfinished messages would hold over half its {@link BufferBudget} does a
 * message's buffer grow as its bytes arrive instead (doubling from 64 KiB, up to its size; the
 * whole size once it is within a quarter of it), so that many large messages in progress at
 * once hold about what arrived, not what was announced. A length over
 * `maxMessageBytes` throws RESOURCE_EXHAUSTED `message-too-large` at once; buffers over the
 * connection's {@link BufferBudget} throw RESOURCE_EXHAUSTED too.
 */
export class MessageReader {
  readonly #maxBytes: number;
  readonly #what: string;
  readonly #budget: BufferBudget;
  /** A prefix split across payloads (made the first time one is). */
  #head: Uint8Array | undefined;
  #headFill = 0;
  /** The message being collected: its length (-1: none), buffer and bytes so far. */
  #length = -1;
  #body: Uint8Array | undefined;
  #bodyFill = 0;
  #compressed = false;
  /** Where a message's whole-size buffer comes from when its bytes are lent back. */
  #pool: BufferPool | undefined;
  #bodyPooled = false;
  /** The payload being read, once a whole message of it was copied: `#copy` = its `[#copyFrom …)`. */
  #copyOf: Uint8Array | undefined;
  #copy: Uint8Array | undefined;
  #copyFrom = 0;

  constructor(maxMessageBytes: number, what: string, budget: BufferBudget) {
    this.#maxBytes = maxMessageBytes;
    this.#what = what;
    this.#budget = budget;
  }

  /**
   * Takes the buffers of messages that span payloads from `pool` (when one is taken at its
   * whole size): the sink is told, and gives each back to `pool` once done with it.
   */
  lendFrom(pool: BufferPool): void {
    this.#pool = pool;
  }

  /** True when a message has begun and not ended (the stream must not end here). */
  get partial(): boolean {
    return this.#headFill > 0 || this.#length >= 0;
  }

  /** Takes a DATA payload (only valid during the call): each message completed goes to `sink`. */
  push(data: Uint8Array, sink: MessageSink): void {
    let pos = 0;
    const n = data.byteLength;
    this.#copyOf = undefined;
    while (pos < n) {
      const length = this.#length;
      if (length >= 0) {
        const take = Math.min(length - this.#bodyFill, n - pos);
        const body = this.#room(this.#bodyFill + take);
        body.set(data.subarray(pos, pos + take), this.#bodyFill);
        this.#bodyFill += take;
        pos += take;
        if (this.#bodyFill === length) {
          const pooled = this.#bodyPooled;
          this.#bodyPooled = false; // the sink's now: release() must not give it back
          this.release();
          sink.onMessage(this.#compressed, body, pooled);
        }
        continue;
      }
      if (this.#headFill === 0 && n - pos >= MESSAGE_PREFIX_BYTES) {
        // The common case: the prefix is whole in this payload.
        const flag = data[pos] as number;
        const size =
          (((data[pos + 1] as number) << 24) |
            ((data[pos + 2] as number) << 16) |
            ((data[pos + 3] as number) << 8) |
            (data[pos + 4] as number)) >>>
          0;
        pos += MESSAGE_PREFIX_BYTES;
        this.#checkHead(flag, size);
        if (n - pos >= size) {
          this.#whole(data, pos, size, flag === 1, sink);
          pos += size;
        } else {
          this.#compressed = flag === 1;
          this.#length = size;
        }
        continue;
      }
      this.#head ??= new Uint8Array(MESSAGE_PREFIX_BYTES);
      const head = this.#head;
      while (this.#headFill < MESSAGE_PREFIX_BYTES && pos < n)
        head[this.#headFill++] = data[pos++] as number;
      if (this.#headFill < MESSAGE_PREFIX_BYTES) return;
      this.#headFill = 0;
      const size =
        (((head[1] as number) << 24) |
          ((head[2] as number) << 16) |
          ((head[3] as number) << 8) |
          (head[4] as number)) >>>
        0;
      this.#checkHead(head[0] as number, size);
      if (size === 0) {
        sink.onMessage(head[0] === 1, new Uint8Array(0), false);
        continue;
      }
      this.#compressed = head[0] === 1;
      this.#length = size;
    }
  }

  /**
   * The message `data[pos … pos + size)`, whole in the payload, to `sink` as bytes it may keep:
   * a view of one copy of the payload's rest (made for the first such message of a payload), or
   * with a lending pool from 4 KiB on a buffer of the pool.
   */
  #whole(
    data: Uint8Array,
    pos: number,
    size: number,
    compressed: boolean,
    sink: MessageSink,
  ): void {
    const pool = this.#pool;
    if (pool !== undefined && size >= POOLED_COPY_MIN_BYTES) {
      const own = pool.take(size) ?? pool.make(size);
      own.set(data.subarray(pos, pos + size));
      sink.onMessage(compressed, own, true);
      return;
    }
    if (this.#copyOf !== data) {
      this.#copyOf = data;
      this.#copy = data.slice(pos);
      this.#copyFrom = pos;
    }
    const at = pos - this.#copyFrom;
    sink.onMessage(compressed, (this.#copy as Uint8Array).subarray(at, at + size), false);
  }

  /** The body buffer, grown to hold at least `bytes` (charged to the budget). */
  #room(bytes: number): Uint8Array {
    const body = this.#body;
    const have = body?.byteLength ?? 0;
    if (bytes <= have) return body as Uint8Array;
    const length = this.#length;
    const budget = this.#budget;
    // One buffer of the whole size, while the budget has room: growing a 1 MiB message from
    // 64 KiB made four more buffers (64–512 KiB) and 960 KiB of extra copies.
    let capacity =
      have === 0 && budget.usedBytes + length <= budget.limitBytes / WHOLE_AT_ONCE_PARTS
        ? length
        : Math.min(length, Math.max(bytes, have * 2, FIRST_CAPACITY_BYTES));
    // Within a quarter of the whole message, take the whole: a 64 KiB chunk behind its codec's
    // few bytes of fields would otherwise cost a 64 KiB buffer and then one of its size.
    if (capacity * 5 >= length * 4) capacity = length;
    if (budget.usedBytes + capacity - have > budget.limitBytes)
      throw new NearwireError(
        Code.ResourceExhausted,
        `${this.#what}: unfinished messages on this connection would take ${budget.usedBytes + capacity - have} B > ${budget.limitBytes}`,
      );
    const pool = this.#pool;
    const pooled = pool !== undefined && capacity === length;
    const grown = pooled ? (pool.take(length) ?? pool.make(length)) : new Uint8Array(capacity);
    if (body !== undefined) grown.set(body.subarray(0, this.#bodyFill));
    budget.usedBytes += capacity - have;
    this.#body = grown;
    this.#bodyPooled = pooled;
    return grown;
  }

  /** Drops the message being collected (its call ended) and gives its bytes back to the budget. */
  release(): void {
    const body = this.#body;
    if (body !== undefined) {
      this.#budget.usedBytes -= body.byteLength;
      if (this.#bodyPooled) this.#pool?.give(body);
    }
    this.#body = undefined;
    this.#bodyPooled = false;
    this.#bodyFill = 0;
    this.#length = -1;
  }

  #checkHead(flag: number, length: number): void {
    if (flag > 1)
      throw new NearwireError(
        Code.Internal,
        `${this.#what} has compressed flag ${flag} (only 0 or 1)`,
        {
          reason: "protocol-violation",
        },
      );
    if (length > this.#maxBytes)
      throw new NearwireError(
        Code.ResourceExhausted,
        `${this.#what} ${length} B > maxMessageBytes ${this.#maxBytes}`,
        {
          reason: "message-too-large",
        },
      );
  }
}
