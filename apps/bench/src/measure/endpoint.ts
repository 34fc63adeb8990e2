/**
 * The two ends of a benchmark case, whatever the transport: the server child starts a
 * {@link BenchServer}; the client child connects a {@link BenchClient} and drives it.
 */

/** Frame type the channel-layer cases echo (the first application type). */
export const ECHO_FRAME = 0x80;
/** Channel-layer stream request: 8 bytes, u32 BE count, u32 BE payload size. */
export const STREAM_REQUEST_FRAME = 0x81;
/** Channel-layer streamed frame, server to client. */
export const STREAM_FRAME = 0x82;

/** A running benchmark server. */
export interface BenchServer {
  /** Address the client connects to (after binding, so `tcp:127.0.0.1:0` has its port). */
  readonly address: string;
  close(): Promise<void>;
}

/** A connected benchmark client. */
export interface BenchClient {
  /** Bytes of one message on the wire, one way, before framing (encoded message or raw payload). */
  readonly wireBytes: number;
  /** One call: sends the case's message and resolves when the echo has arrived (and decoded). */
  roundTrip(): Promise<void>;
  /** Asks the server to send `count` messages one way and resolves when all have arrived. */
  stream(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Stream request payload: u32 BE count, u32 BE size. */
export function encodeStreamRequest(count: number, size: number): Uint8Array {
  const b = new Uint8Array(8);
  const v = new DataView(b.buffer);
  v.setUint32(0, count);
  v.setUint32(4, size);
  return b;
}

/** Reads a stream request written by {@link encodeStreamRequest}. */
export function decodeStreamRequest(b: Uint8Array): { count: number; size: number } {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return { count: v.getUint32(0), size: v.getUint32(4) };
}

/** First-in first-out waiters for ordered replies. */
export class ReplyQueue {
  #resolvers: Array<() => void> = [];
  #rejecters: Array<(e: Error) => void> = [];
  #head = 0;
  /** A promise for the next reply in order. */
  next(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#resolvers.push(resolve);
      this.#rejecters.push(reject);
    });
  }
  /** Settles the oldest waiter; false when nobody waits. */
  reply(): boolean {
    const r = this.#resolvers[this.#head];
    if (r === undefined) return false;
    this.#head++;
    if (this.#head > 1024) {
      this.#resolvers = this.#resolvers.slice(this.#head);
      this.#rejecters = this.#rejecters.slice(this.#head);
      this.#head = 0;
    }
    r();
    return true;
  }
  /** Rejects every waiter. */
  fail(err: Error): void {
    for (const r of this.#rejecters.slice(this.#head)) r(err);
    this.#resolvers = [];
    this.#rejecters = [];
    this.#head = 0;
  }
}
