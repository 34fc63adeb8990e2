/** The receiving end of a streamed call as an async iterable, with credit. */
import type { NearwireError } from "../nearwire-error.js";
import { nextNow, whenReady } from "./next-now.js";

/**
 * The receiving end of a streamed call, as an async iterable. Messages are pushed by the
 * engine as frames arrive; each one taken by the consumer is reported to `onConsumed`, which
 * returns CREDIT to the sender, so the buffer never holds more than the granted window.
 */
export class InboundStream<T> implements AsyncIterableIterator<T> {
  /**
   * Buffered messages: a ring of `items.length` (a power of two) slots from `head`, `count` of
   * them used. It doubles when full and never shrinks, so a stream that fills and drains its
   * buffer over and over does not reallocate it each time.
   */
  private items: (T | undefined)[] = new Array<T | undefined>(16).fill(undefined);
  private head = 0;
  private count = 0;
  private ended = false;
  private error: NearwireError | undefined;
  private waiter: ((r: IteratorResult<T>) => void) | undefined;
  private failWaiter: ((e: NearwireError) => void) | undefined;
  /** The consumer's {@link whenReady} callback, if it waits with one. */
  private wake: (() => void) | undefined;

  private onConsumed: () => void = nothing;
  private onAbandon: () => void = nothing;
  /**
   * Lending (see {@link lend}): the frame of each buffered message, parallel to `items`; the
   * frame of the message the consumer holds; where frames go back.
   */
  private frames: (Uint8Array | undefined)[] | undefined;
  private lent: Uint8Array | undefined;
  private reclaim: ((frame: Uint8Array) => void) | undefined;

  /**
   * Sets what happens when the consumer takes a message (`onConsumed`: return CREDIT) and when
   * it stops iterating early (`onAbandon`: cancel the call).
   */
  bind(onConsumed: () => void, onAbandon: () => void): void {
    this.onConsumed = onConsumed;
    this.onAbandon = onAbandon;
  }

  /**
   * The consumer is done with a message once it asks for the next one (`lendMessages`): the
   * frame pushed with it then goes to `reclaim`. Frames of messages never taken (the stream
   * ended or failed first) are left to the garbage collector.
   */
  lend(reclaim: (frame: Uint8Array) => void): void {
    this.reclaim = reclaim;
    this.frames = new Array<Uint8Array | undefined>(this.items.length).fill(undefined);
  }

  /** Gives the frame of the message the consumer held back, if any. */
  private giveBack(): void {
    const frame = this.lent;
    if (frame !== undefined) {
      this.lent = undefined;
      (this.reclaim as (frame: Uint8Array) => void)(frame);
    }
  }

  /**
   * The consumer is done with every message it took (a lending handler returned or failed):
   * the frame of the last one goes back too, not only when a next one is asked for.
   */
  consumerDone(): void {
    if (this.lent !== undefined) this.giveBack();
  }

  /** Messages buffered and not yet taken. */
  get buffered(): number {
    return this.count;
  }

  /**
   * Buffers `value` (or hands it to a waiting consumer). `frame`: the buffer it was decoded from
   * and still refers to, given back once the consumer is done with it when lending.
   */
  push(value: T, frame?: Uint8Array): void {
    if (this.ended) return;
    const w = this.waiter;
    if (w !== undefined) {
      this.waiter = undefined;
      this.failWaiter = undefined;
      if (this.frames !== undefined) this.lent = frame;
      this.onConsumed();
      w({ value, done: false });
      return;
    }
    let items = this.items;
    if (this.count === items.length) items = this.grow();
    const at = (this.head + this.count) & (items.length - 1);
    items[at] = value;
    if (this.frames !== undefined) this.frames[at] = frame;
    this.count++;
    this.wakeConsumer();
  }

  /** Calls the consumer's {@link whenReady} callback, if one is pending. */
  private wakeConsumer(): void {
    const wake = this.wake;
    if (wake !== undefined) {
      this.wake = undefined;
      wake();
    }
  }

  /** Doubles the ring, its messages moved to the start in order. */
  private grow(): (T | undefined)[] {
    const old = this.items;
    const items = new Array<T | undefined>(old.length * 2).fill(undefined);
    for (let i = 0; i < this.count; i++) items[i] = old[(this.head + i) & (old.length - 1)];
    this.items = items;
    const oldFrames = this.frames;
    if (oldFrames !== undefined) {
      const frames = new Array<Uint8Array | undefined>(items.length).fill(undefined);
      for (let i = 0; i < this.count; i++)
        frames[i] = oldFrames[(this.head + i) & (old.length - 1)];
      this.frames = frames;
    }
    this.head = 0;
    return items;
  }

  /**
   * Drops every buffered message. The one the consumer holds stays lent: it may still be using
   * it (it broke out of its loop, or a deadline failed the stream), and gives it back with its
   * next `next()` or {@link consumerDone}.
   */
  private clear(): void {
    this.items.fill(undefined);
    this.frames?.fill(undefined);
    this.head = 0;
    this.count = 0;
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
    this.wakeConsumer();
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
    if (!keepBuffered) this.clear();
    const f = this.failWaiter;
    if (f !== undefined) {
      this.waiter = undefined;
      this.failWaiter = undefined;
      f(error);
    }
    this.wakeConsumer();
  }

  /**
   * The next result when it is at hand (see core's `nextNow`): a buffered message, the end, or
   * the stream's error thrown; undefined when the consumer has to wait for `next()`.
   */
  [nextNow](): IteratorResult<T> | undefined {
    if (this.lent !== undefined) this.giveBack();
    if (this.count > 0) {
      const items = this.items;
      const value = items[this.head] as T;
      items[this.head] = undefined;
      const frames = this.frames;
      if (frames !== undefined) {
        this.lent = frames[this.head];
        frames[this.head] = undefined;
      }
      this.head = (this.head + 1) & (items.length - 1);
      this.count--;
      this.onConsumed();
      return { value, done: false };
    }
    if (this.error !== undefined) throw this.error;
    if (this.ended) return { value: undefined, done: true };
    return undefined;
  }

  /**
   * Calls `wake` once `[nextNow]()` has a result (see core's `whenReady`): now, when it has one,
   * else from {@link push}, {@link end}, {@link fail} or `return()`. Always true.
   */
  [whenReady](wake: () => void): boolean {
    if (this.count > 0 || this.ended) wake();
    else this.wake = wake;
    return true;
  }

  next(): Promise<IteratorResult<T>> {
    let now: IteratorResult<T> | undefined;
    try {
      now = this[nextNow]();
    } catch (err) {
      return Promise.reject(err);
    }
    if (now !== undefined) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      this.failWaiter = reject;
    });
  }

  return(): Promise<IteratorResult<T>> {
    if (!this.ended) {
      this.ended = true;
      this.clear();
      this.onAbandon();
      this.wakeConsumer();
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

function nothing(): void {}
