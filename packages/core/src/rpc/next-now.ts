/** nextNow: the synchronous side door of a message iterator, tried before `next()`. */

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
