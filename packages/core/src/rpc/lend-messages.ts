/** lendMessages: a streaming handler that lets the engine reuse its request messages' buffers. */

const LENDS = Symbol.for("nearwire.lendMessages");

/**
 * Marks a client- or bidi-streaming handler that is done with each request message once it asks
 * its request stream for the next one (`next()`, the next turn of a `for await`), or once it
 * returns (or throws), and keeps neither the message nor a view of its bytes past that point. The engine may then give the
 * message's receive buffer back to the channel for a later frame (a socket channel reads the
 * next large message into it) instead of leaving it to the garbage collector. Has no effect on
 * other kinds of methods, on a method served with interceptors (one could keep messages), or on
 * a channel that cannot reuse buffers. Returns `handler`.
 *
 * ```ts
 * const impl = {
 *   upload: lendMessages(async (requests: AsyncIterable<Chunk>) => {
 *     for await (const chunk of requests) hash.update(chunk.data); // used, not kept
 *     return { ok: true };
 *   }),
 * };
 * ```
 */
export function lendMessages<F extends (...args: never[]) => unknown>(handler: F): F {
  Object.defineProperty(handler, LENDS, { value: true });
  return handler;
}

/** True for a handler marked with {@link lendMessages}. @internal */
export function lendsMessages(handler: unknown): boolean {
  return (
    typeof handler === "function" && (handler as unknown as Record<symbol, unknown>)[LENDS] === true
  );
}
