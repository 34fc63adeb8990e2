import { nextNow } from "@nearwire/core";

/**
 * The next result of a received stream when it is at hand: core's streams answer `[nextNow]()`
 * with a message already buffered, so a receive loop takes it without a promise and awaits
 * `next()` only when it has to wait (`resultNow(it) ?? (await it.next())`). Undefined for an
 * iterator without it.
 */
export function resultNow<T>(it: AsyncIterator<T>): IteratorResult<T> | undefined {
  return (it as { [nextNow]?(): IteratorResult<T> | undefined })[nextNow]?.();
}
