/** ResponseStream: a streamed response whose call starts when iteration starts. */
import { nextNow, whenReady } from "@nearwire/core";
import type { InboundStream } from "@nearwire/core/transport-kit";

const DONE: IteratorResult<unknown> = { value: undefined, done: true };

/**
 * The stream a server-streaming or bidi method returns: `start()` opens the call (and gives
 * the stream it fills) at the first `next()` (or `[whenReady]()`), as an async generator
 * wrapping it did — a call never iterated is never sent, and the caller's checks (closed
 * connection, aborted signal, timeout) fail that first step. Unlike a generator it passes
 * core's {@link nextNow} and {@link whenReady} through: a consumer takes messages already
 * received, and waits for the next, with no promise (a generator's step made three or four per
 * message). `return()` leaves early and cancels the call.
 */
export class ResponseStream implements AsyncIterableIterator<unknown> {
  #inbound: InboundStream<unknown> | undefined;
  #start: (() => InboundStream<unknown>) | undefined;
  /** Why `start()` threw, until a step has reported it (as a generator's first step rejects). */
  #startFailure: { error: unknown } | undefined;

  constructor(start: () => InboundStream<unknown>) {
    this.#start = start;
  }

  /** Starts the call; false when `start()` threw (the next step reports it). */
  #begin(): boolean {
    const start = this.#start as () => InboundStream<unknown>;
    this.#start = undefined;
    try {
      this.#inbound = start();
      return true;
    } catch (error) {
      this.#startFailure = { error };
      return false;
    }
  }

  /** A result at hand; undefined before the call started (the first step starts it). */
  [nextNow](): IteratorResult<unknown> | undefined {
    if (this.#inbound !== undefined) return this.#inbound[nextNow]();
    const failure = this.#startFailure;
    if (failure !== undefined) {
      this.#startFailure = undefined;
      throw failure.error;
    }
    return this.#start === undefined ? DONE : undefined;
  }

  /** Starts the call if it has not started, then calls `wake` once a result is at hand. */
  [whenReady](wake: () => void): boolean {
    if (this.#inbound === undefined && (this.#start === undefined || !this.#begin())) {
      wake(); // done, or the start failed: `[nextNow]()` reports it
      return true;
    }
    return (this.#inbound as InboundStream<unknown>)[whenReady](wake);
  }

  next(): Promise<IteratorResult<unknown>> {
    if (this.#inbound === undefined && this.#start !== undefined) this.#begin();
    if (this.#inbound !== undefined) return this.#inbound.next();
    try {
      return Promise.resolve(this[nextNow]() ?? DONE);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  return(): Promise<IteratorResult<unknown>> {
    this.#start = undefined;
    this.#startFailure = undefined;
    if (this.#inbound !== undefined) return this.#inbound.return();
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<unknown> {
    return this;
  }
}
