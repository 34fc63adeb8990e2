/** sendMessageBytes: one encoded gRPC message on a stream, behind its 5-byte prefix. */

import type { MessageCodec } from "@nearwire/core";
import { writeU32 } from "../http2/frame.js";
import type { H2Stream } from "../http2/h2-stream.js";
import type { DataFiller, Http2Session } from "../http2/http2-session.js";
import { compress, type Encoding } from "./compression.js";
import { MESSAGE_PREFIX_BYTES } from "./message-reader.js";

/** Below this many bytes a message is copied behind its prefix; above, sent as its own buffer. */
export const COPY_MAX_BYTES = 16 * 1024;

/** Copies one message behind its prefix straight into the connection's batch. */
class CopyFiller implements DataFiller {
  bytes: Uint8Array = new Uint8Array(0);
  flag = 0;
  fillData(dest: Uint8Array, start: number, end: number): number {
    const n = this.bytes.byteLength;
    if (MESSAGE_PREFIX_BYTES + n > end - start) return -1;
    dest[start] = this.flag;
    writeU32(dest, start + 1, n);
    dest.set(this.bytes, start + MESSAGE_PREFIX_BYTES);
    return MESSAGE_PREFIX_BYTES + n;
  }
}
const copier = new CopyFiller();

/**
 * Sends one encoded message on `stream`: prefix and bytes in one DATA run. A small message is
 * copied behind its prefix into the connection's batch (or, without window, into a buffer of
 * its own that waits); a large one goes out as its own buffer, not copied. With `endStream`
 * the DATA ends the stream.
 */
export function sendMessageBytes(
  session: Http2Session,
  stream: H2Stream,
  encoded: Uint8Array,
  encoding: Encoding,
  endStream = false,
): void {
  let bytes = encoded;
  let flag = 0;
  if (encoding === "gzip") {
    bytes = compress(encoded);
    flag = 1;
  }
  const n = bytes.byteLength;
  if (n < COPY_MAX_BYTES) {
    copier.bytes = bytes;
    copier.flag = flag;
    const sent = session.trySendDataWith(stream, endStream, copier);
    copier.bytes = EMPTY;
    if (sent >= 0) return;
    const framed = new Uint8Array(MESSAGE_PREFIX_BYTES + n);
    framed[0] = flag;
    writeU32(framed, 1, n);
    framed.set(bytes, MESSAGE_PREFIX_BYTES);
    session.sendData(stream, framed, 0, framed.byteLength, endStream);
    return;
  }
  const prefix = new Uint8Array(MESSAGE_PREFIX_BYTES);
  prefix[0] = flag;
  writeU32(prefix, 1, n);
  session.sendData(stream, prefix, 0, MESSAGE_PREFIX_BYTES, false);
  session.sendData(stream, bytes, 0, n, endStream);
}

const EMPTY = new Uint8Array(0);

/**
 * Sends a large message encoded in place (identity encoding, a codec with `encodeIntoRange`):
 * behind its prefix into a buffer of the session's send pool that holds `sizeHint` bytes and a
 * quarter more (the size of the call's last message), sent as its own buffer and given back to
 * the pool once the socket has written it — also when flow control held part of it back until a
 * WINDOW_UPDATE (a stream that ends first drops the buffer). Returns the message's size, or -1
 * when nothing was sent (no room in that buffer, over `maxMessageBytes`, the codec threw): the
 * caller then encodes as usual, which also reports the error.
 */
export function sendMessageInPlace(
  session: Http2Session,
  stream: H2Stream,
  codec: MessageCodec<unknown>,
  value: unknown,
  sizeHint: number,
  maxMessageBytes: number,
  endStream: boolean,
): number {
  const encodeIntoRange = codec.encodeIntoRange;
  if (encodeIntoRange === undefined) return -1;
  const pool = session.sendPool;
  const room = MESSAGE_PREFIX_BYTES + Math.min(sizeHint + (sizeHint >> 2), maxMessageBytes);
  const buffer = pool.take(room) ?? pool.make(room);
  let n: number;
  try {
    n = encodeIntoRange.call(codec, value, buffer, MESSAGE_PREFIX_BYTES, buffer.byteLength);
  } catch {
    n = -1;
  }
  if (n < 0 || n > maxMessageBytes) {
    pool.give(buffer);
    return -1;
  }
  buffer[0] = 0;
  writeU32(buffer, 1, n);
  session.sendData(stream, buffer, 0, MESSAGE_PREFIX_BYTES + n, endStream, () => pool.give(buffer));
  return n;
}

/**
 * The size of the first message of the last call that sent with a codec (a method's message
 * type): a call starts from it, so a stream of large messages sends its first one in place too
 * instead of encoding it into a fresh buffer (one per call before).
 */
const firstBytes = new WeakMap<MessageCodec<unknown>, number>();

/**
 * One call's messages encoded in place where its codec can (`encodeIntoRange`, identity
 * encoding): a large message (after one of {@link COPY_MAX_BYTES} or more) into a pooled buffer
 * ({@link sendMessageInPlace}), a small one straight into the connection's batch. Remembers
 * the last message's size, which picks the way for the next.
 */
export class InPlaceSender implements DataFiller {
  /** Size of the last message sent, bytes (see {@link learned}). */
  lastBytes: number;
  /** No message of this call was sent yet. */
  #first = true;
  /** The value {@link fillData} encodes (the fast path's argument, without a closure per call). */
  #value: unknown;
  readonly #codec: MessageCodec<unknown>;
  readonly #encodeIntoRange: NonNullable<MessageCodec<unknown>["encodeIntoRange"]>;
  readonly #maxMessageBytes: number;

  constructor(codec: MessageCodec<unknown>, maxMessageBytes: number) {
    this.#codec = codec;
    this.#encodeIntoRange = codec.encodeIntoRange as NonNullable<
      MessageCodec<unknown>["encodeIntoRange"]
    >;
    this.#maxMessageBytes = maxMessageBytes;
    this.lastBytes = firstBytes.get(codec) ?? 0;
  }

  /** A message of `bytes` went out (in place, or encoded by the caller when this could not). */
  learned(bytes: number): void {
    this.lastBytes = bytes;
    if (this.#first) {
      this.#first = false;
      firstBytes.set(this.#codec, bytes);
    }
  }

  /** An in-place sender for `codec`, or undefined when it cannot encode in place. */
  static for(codec: MessageCodec<unknown>, maxMessageBytes: number): InPlaceSender | undefined {
    return codec.encodeIntoRange === undefined
      ? undefined
      : new InPlaceSender(codec, maxMessageBytes);
  }

  /** Sends `value` encoded in place; false when nothing was sent (encode it the usual way). */
  trySend(session: Http2Session, stream: H2Stream, value: unknown, endStream: boolean): boolean {
    const max = this.#maxMessageBytes;
    if (this.lastBytes >= COPY_MAX_BYTES) {
      const n = sendMessageInPlace(
        session,
        stream,
        this.#codec,
        value,
        this.lastBytes,
        max,
        endStream,
      );
      if (n >= 0) {
        this.learned(n);
        return true;
      }
    }
    this.#value = value;
    const n = session.trySendDataWith(stream, endStream, this);
    this.#value = undefined;
    if (n < 0) return false;
    this.learned(n - MESSAGE_PREFIX_BYTES);
    return true;
  }

  /** Encodes the value behind a message prefix into `dest[start … end)`; -1 when it needs more room. */
  fillData(dest: Uint8Array, start: number, end: number): number {
    const n = this.#encodeIntoRange.call(
      this.#codec,
      this.#value,
      dest,
      start + MESSAGE_PREFIX_BYTES,
      end,
    );
    if (n < 0 || n > this.#maxMessageBytes) return -1;
    dest[start] = 0;
    writeU32(dest, start + 1, n);
    return n + MESSAGE_PREFIX_BYTES;
  }
}

/** Where a call parks while its stream waits for a WINDOW_UPDATE: `wake` runs when it comes. */
export interface WritableWaiter {
  /** The call ended (finished, cancelled): stop waiting. */
  done(): boolean;
  /** Keeps `wake` until the stream's pending tail went out (or the call ended). */
  park(wake: () => void): void;
}

/**
 * Resolves once `stream` has sent its pending tail (flow control let it) and the socket's
 * queue is below `highWaterMarkBytes`, or the call ended: one promise per wait, however many
 * window updates and socket drains it takes.
 */
export function whenWritable(
  session: Http2Session,
  stream: H2Stream,
  highWaterMarkBytes: number,
  call: WritableWaiter,
): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (call.done()) resolve();
      else if (stream.pending !== undefined) call.park(check);
      else session.writer.whenDrained(highWaterMarkBytes, resolve);
    };
    check();
  });
}
