/**
 * nextNow and whenReady: the synchronous side doors of a message iterator, tried before
 * `next()`.
 */

/**
 * A method a message iterator may have besides `next()`:
 * `[nextNow](): IteratorResult<T> | undefined` gives the next result when the iterator has it
 * at hand and undefined when the caller has to call `next()` and wait; throwing is as `next()`
 * rejecting. Both ways:
 * - the engine asks a request or response source's iterator here before each `next()`, so a
 *   source whose messages are usually ready (a file read ahead in blocks) costs no promise per
 *   message;
 * - a received stream (a streaming call's responses, a streaming handler's requests) has it,
 *   so a consumer loop can take the messages already buffered without a promise each.
 *
 * `Symbol.for`, so that two copies of this package agree on it.
 */
export const nextNow: unique symbol = Symbol.for("nearwire.nextNow");

/**
 * A method a message iterator may have besides {@link nextNow}, for a caller that waits
 * without a promise: `[whenReady](wake: () => void): boolean` arranges for `wake` to be called
 * once, as soon as `[nextNow]()` has a result (a message, the end, or the error it throws), and
 * returns true; or returns false, and never calls `wake`, when the iterator cannot wait that
 * way at this point (the caller then calls `next()`). When a result is at hand already, `wake`
 * is called before `whenReady` returns. Otherwise it is called from wherever the result comes
 * from — for a received stream, the engine's receive path as the message or the end arrives —
 * so `wake` must not throw. One wake is pending at a time. Both ways again:
 * - core's received streams always wait this way; `forEachMessage` is the receive loop
 *   built on it;
 * - the engine's pump waits this way on a source that offers it (a file read in flight) instead
 *   of calling `next()`.
 *
 * `Symbol.for`, so that two copies of this package agree on it.
 */
export const whenReady: unique symbol = Symbol.for("nearwire.whenReady");

/** A message iterator with the optional side doors. */
export interface SideDoorIterator<T> extends AsyncIterator<T> {
  [nextNow]?(): IteratorResult<T> | undefined;
  [whenReady]?(wake: () => void): boolean;
}
