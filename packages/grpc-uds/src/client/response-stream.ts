/** ResponseStream: a streamed response whose call starts when iteration starts. */
import { nextNow } from "@nearwire/core";
import type { InboundStream } from "@nearwire/core/transport-kit";

/**
 * The stream a server-streaming or bidi method returns: `start()` opens the call (and gives
 * the stream it fills) at the first `next()`, as an async generator wrapping it did — a call
 * never iterated is never sent, and the caller's checks (closed connection, aborted signal,
 * timeout) fail that first `next()`. Unlike a generator it passes core's {@link nextNow}
 * through: a consumer takes messages already received with no promise (a generator's step made
 * three or four per message). `return()` leaves early and cancels the call.
 */
export class ResponseStream implements AsyncIterableIterator<unknown> {
  #inbound: InboundStream<unknown> | undefined;
  #start: (() => InboundStream<unknown>) | undefined;

  constructor(start: () => InboundStream<unknown>) {
    this.#start = start;
  }

  /** A result at hand; undefined before the call started (the first `next()` starts it). */
  [nextNow](): IteratorResult<unknown> | undefined {
    if (this.#inbound !== undefined) return this.#inbound[nextNow]();
    return this.#start === undefined ? { value: undefined, done: true } : undefined;
  }

  next(): Promise<IteratorResult<unknown>> {
    if (this.#inbound !== undefined) return this.#inbound.next();
    const start = this.#start;
    if (start === undefined) return Promise.resolve({ value: undefined, done: true });
    this.#start = undefined;
    try {
      this.#inbound = start();
    } catch (err) {
      // As a generator: its first step rejects, every later one is done.
      return Promise.reject(err);
    }
    return this.#inbound.next();
  }

  return(): Promise<IteratorResult<unknown>> {
    this.#start = undefined;
    if (this.#inbound !== undefined) return this.#inbound.return();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<unknown> {
    return this;
  }
}
