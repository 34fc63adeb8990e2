/** The receiving end of a streamed call as an async iterable, with credit. */
import type { NearwireError } from "../nearwire-error.js";

/**
 * The receiving end of a streamed call, as an async iterable. Messages are pushed by the
 * engine as frames arrive; each one taken by the consumer is reported to `onConsumed`, which
 * returns CREDIT to the sender, so the buffer never holds more than the granted window.
 */
export class InboundStream<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private head = 0;
  private ended = false;
  private error: NearwireError | undefined;
  private waiter: ((r: IteratorResult<T>) => void) | undefined;
  private failWaiter: ((e: NearwireError) => void) | undefined;

  private onConsumed: () => void = nothing;
  private onAbandon: () => void = nothing;

  /**
   * Sets what happens when the consumer takes a message (`onConsumed`: return CREDIT) and when
   * it stops iterating early (`onAbandon`: cancel the call).
   */
  bind(onConsumed: () => void, onAbandon: () => void): void {
    this.onConsumed = onConsumed;
    this.onAbandon = onAbandon;
  }

  /** Messages buffered and not yet taken. */
  get buffered(): number {
    return this.items.length - this.head;
  }

  push(value: T): void {
    if (this.ended) return;
    const w = this.waiter;
    if (w !== undefined) {
      this.waiter = undefined;
      this.failWaiter = undefined;
      this.onConsumed();
      w({ value, done: false });
      return;
    }
    this.items.push(value);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    const w = this.waiter;
    if (w !== undefined && this.buffered === 0) {
      this.waiter = undefined;
      this.failWaiter = undefined;
      w({ value: undefined, done: true });
    }
  }

  /**
   * Ends the stream with `error`. With `keepBuffered` (the peer ended the call with an error
   * status) messages that arrived before it are still delivered, then the error is thrown; a
   * local cancel, a deadline or a lost connection drops them.
   */
  fail(error: NearwireError, keepBuffered = false): void {
    if (this.ended) return;
    this.ended = true;
    this.error = error;
    if (!keepBuffered) {
      this.items.length = 0;
      this.head = 0;
    }
    const f = this.failWaiter;
    if (f !== undefined) {
      this.waiter = undefined;
      this.failWaiter = undefined;
      f(error);
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.items.length) {
      const value = this.items[this.head] as T;
      this.items[this.head] = undefined as T;
      this.head++;
      if (this.head === this.items.length) {
        this.items.length = 0;
        this.head = 0;
      }
      this.onConsumed();
      return Promise.resolve({ value, done: false });
    }
    if (this.error !== undefined) return Promise.reject(this.error);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      this.failWaiter = reject;
    });
  }

  return(): Promise<IteratorResult<T>> {
    if (!this.ended) {
      this.ended = true;
      this.items.length = 0;
      this.head = 0;
      this.onAbandon();
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

function nothing(): void {}
