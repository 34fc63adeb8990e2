/** Sends a stream's messages from an (async) iterable, within its credit and the channel's room. */
import { nextNow, type SideDoorIterator, whenReady } from "./next-now.js";

/** What a pump sends into: one streamed call's side of the channel. */
export interface PumpSink {
  /** True once the call ended: the pump sends nothing more and closes its source. */
  ended(): boolean;
  /** Sends one message; false when the channel is above its high-water mark (wait for `drained`). */
  send(value: unknown): boolean;
  drained(): Promise<void>;
  /** The pump stopped because the source ended or the call did (its source closed, if early). */
  finished(): void;
  /** The pump stopped because the source, a send or a wait threw `error` (its source closed). */
  failed(error: unknown): void;
}

/**
 * The stream credit a pump takes one of per message (core's `OutboundCredit`): undefined when
 * there is one now, else a promise that resolves once one is taken (rejects when the call ended).
 */
export interface PumpCredit {
  take(): Promise<void> | undefined;
}

/** Why a pump stops early: the error that stopped it (absent: the call ended). */
interface Failure {
  readonly error: unknown;
}

/**
 * Pumps `source` into `sink`: the engine's one loop that sends a streamed call's messages (a
 * server's responses, a client's requests). It does what
 *
 *     for await (const value of source) {
 *       if (sink.ended()) return;
 *       await credit?.take();           // when there is none left
 *       if (sink.ended()) return;
 *       if (!sink.send(value)) await sink.drained();
 *     }
 *
 * does, closing the source (`return()`) on every early exit as `for await` does, but as
 * promise callbacks bound once per stream: an async function's own suspension and promise per
 * message are a large part of what an async generator's item costs.
 * A sync iterable is read through `for await`'s own adapter (its values may be promises).
 *
 * A source iterator with a {@link nextNow} method is asked there first: while it has messages
 * ready, and credit and room last, they go out in one loop with no promise at all. When it
 * answers undefined, a source with {@link whenReady} is waited on with a callback if it takes
 * one; `next()` is called otherwise.
 */
export class MessagePump {
  private iterator!: SideDoorIterator<unknown>;
  private value: unknown;
  private readonly onResult = (r: IteratorResult<unknown>): void => {
    if (this.take(r)) this.pull();
  };
  private readonly onCredit = (): void => {
    if (this.write()) this.pull();
  };
  private readonly onDrained = (): void => this.pull();
  /** The source's {@link whenReady} callback: a result is at hand. */
  private readonly onReady = (): void => this.pull();
  private readonly onSourceError = (err: unknown): void => this.sink.failed(err);
  private readonly onWaitError = (err: unknown): void => this.close({ error: err });

  constructor(
    private readonly source: AsyncIterable<unknown> | Iterable<unknown>,
    /** Undefined where the transport has its own flow control (HTTP/2's, in the sink). */
    private readonly credit: PumpCredit | undefined,
    private readonly sink: PumpSink,
  ) {}

  /**
   * Starts pulling; the outcome goes to `sink.finished` or `sink.failed`, also when getting the source's iterator
   * throws (as `for await` rejects then, the call fails instead of the caller's frame callback).
   */
  start(): void {
    const s = this.source as Partial<AsyncIterable<unknown>> | null | undefined;
    try {
      this.iterator =
        s != null && typeof s[Symbol.asyncIterator] === "function"
          ? (s as AsyncIterable<unknown>)[Symbol.asyncIterator]()
          : fromSync(this.source as Iterable<unknown>);
    } catch (err) {
      this.sink.failed(err);
      return;
    }
    this.pull();
  }

  /** Takes messages while the source has them at hand and they can go, then waits. */
  private pull(): void {
    const it = this.iterator;
    for (;;) {
      let now: IteratorResult<unknown> | undefined;
      try {
        now = it[nextNow]?.();
      } catch (err) {
        this.sink.failed(err);
        return;
      }
      if (now === undefined) break;
      if (!this.take(now)) return;
    }
    let next: Promise<IteratorResult<unknown>>;
    try {
      if (it[whenReady]?.(this.onReady) === true) return;
      next = it.next();
    } catch (err) {
      this.sink.failed(err);
      return;
    }
    // A native promise (an async generator's) is passed through by Promise.resolve as it is.
    Promise.resolve(next).then(this.onResult, this.onSourceError);
  }

  /** One result of the source; true when its message went out and the next can be pulled now. */
  private take(r: IteratorResult<unknown>): boolean {
    if (typeof r !== "object" || r === null) {
      this.sink.failed(new TypeError(`iterator result ${String(r)} is not an object`));
      return false;
    }
    if (r.done === true) {
      this.sink.finished();
      return false;
    }
    if (this.sink.ended()) {
      this.close();
      return false;
    }
    this.value = r.value;
    const wait = this.credit?.take();
    if (wait === undefined) return this.write();
    wait.then(this.onCredit, this.onWaitError);
    return false;
  }

  /** Sends the message taken; true when there is room for the next one now. */
  private write(): boolean {
    const value = this.value;
    this.value = undefined;
    if (this.sink.ended()) {
      this.close();
      return false;
    }
    let room: boolean;
    try {
      room = this.sink.send(value);
    } catch (err) {
      this.close({ error: err });
      return false;
    }
    if (room) return true;
    this.sink.drained().then(this.onDrained, this.onWaitError);
    return false;
  }

  /**
   * Stops early and closes the source as `for await` does: after a `failure`, `return()`'s own
   * failure is ignored and the first error stands; after a normal exit it is the error.
   */
  private close(failure?: Failure): void {
    const it = this.iterator;
    let closing: unknown;
    try {
      closing = it.return === undefined ? undefined : it.return();
    } catch (err) {
      this.sink.failed(failure === undefined ? err : failure.error);
      return;
    }
    if (closing === undefined) {
      this.stop(failure);
      return;
    }
    Promise.resolve(closing).then(
      () => this.stop(failure),
      (err) => this.sink.failed(failure === undefined ? err : failure.error),
    );
  }

  private stop(failure: Failure | undefined): void {
    if (failure === undefined) this.sink.finished();
    else this.sink.failed(failure.error);
  }
}

/** A sync iterable as an async iterator, with `for await`'s semantics (values are awaited). */
async function* fromSync(source: Iterable<unknown>): AsyncGenerator<unknown> {
  for await (const value of source) yield value;
}
