/**
 * deadlinePropagation: a handler's outgoing calls inherit its remaining deadline and its
 * cancellation, as gRPC servers propagate them (grpc-go through the context, grpc-js with
 * `parent` and `propagate_flags`).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { HandlerContext } from "../transport.js";
import type { Interceptor } from "./interceptor.js";

/** The handler call the current code runs for (set by the server side of the interceptor). */
const handlerCall = new AsyncLocalStorage<HandlerContext>();

/**
 * One interceptor for both sides. On the server it records the handler's call for the code
 * the handler runs (its awaits, and the body of a streaming handler as it is iterated); on a
 * client it gives each call made from that code the handler's remaining deadline (the shorter
 * of the two when the call has its own `timeoutMs`) and aborts it when the handler's call ends
 * (client cancel, deadline, lost connection). Put it on the server's services and on the
 * clients the handlers call with. {@link withoutDeadlinePropagation} runs code whose calls
 * should not inherit (a background job started by a handler).
 *
 * @example
 * ```ts
 * import { deadlinePropagation } from "@nearwire/core";
 *
 * const propagate = deadlinePropagation();
 * // server.addService(Front, impl, { codec, interceptors: [propagate] })
 * // const backend = connection.client(Back, { codec, interceptors: [propagate] })
 * // Inside a Front handler, backend.lookup(req) now stops when the Front call does.
 * ```
 */
export function deadlinePropagation(): Interceptor {
  return (next) => async (request) => {
    if (request.side === "server") {
      const ctx = request.context as HandlerContext;
      const response = await handlerCall.run(ctx, () => next(request));
      if (response.stream) response.message = iterateIn(ctx, response.message);
      return response;
    }
    const parent = handlerCall.getStore();
    if (parent !== undefined) {
      if (parent.deadline !== undefined) {
        const left = Math.max(0, parent.deadline - Date.now());
        request.timeoutMs =
          request.timeoutMs === undefined ? left : Math.min(request.timeoutMs, left);
      }
      request.signal =
        request.signal === undefined
          ? parent.signal
          : AbortSignal.any([request.signal, parent.signal]);
    }
    return next(request);
  };
}

/** Runs `fn` (and what it starts) outside any handler's call: its calls inherit nothing. */
export function withoutDeadlinePropagation<T>(fn: () => T): T {
  return handlerCall.exit(fn);
}

/** `source`, each step of it run with `ctx` as the current handler call. */
function iterateIn<T>(ctx: HandlerContext, source: AsyncIterable<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const it = source[Symbol.asyncIterator]();
      return {
        next: () => handlerCall.run(ctx, () => it.next()),
        return: (value?: unknown) =>
          it.return === undefined
            ? Promise.resolve({ done: true, value: undefined as T })
            : handlerCall.run(ctx, () =>
                (it.return as (v?: unknown) => Promise<IteratorResult<T>>)(value),
              ),
      };
    },
  };
}
