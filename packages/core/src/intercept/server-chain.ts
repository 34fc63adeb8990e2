/**
 * The handler a server of any transport runs for a method: the service's handler, with its
 * interceptors (and the diagnostics events while someone subscribes) around it.
 */
import type { BoundMethod } from "../rpc/bound-method.js";
import type { HandlerContext } from "../transport.js";
import { diagnosticsInterceptor, serverCallStart } from "./diagnostics.js";
import {
  type CallNext,
  type CallRequest,
  type CallResponse,
  chain,
  type Interceptor,
  methodInfo,
  runChain,
  streamsResponses,
} from "./interceptor.js";

/** A handler as the engines call it. */
export type Handler = (input: unknown, ctx: HandlerContext) => unknown;

const tracing = diagnosticsInterceptor("server");

/**
 * The handler served for `bound`: `handler` itself when there are no interceptors and nobody
 * subscribes to `nearwire:server:call:start`; otherwise the chain around it.
 */
export function serverHandler(
  bound: BoundMethod,
  handler: Handler,
  interceptors: readonly Interceptor[] | undefined,
): Handler {
  const last = handlerCall(bound, handler);
  const plain =
    interceptors === undefined || interceptors.length === 0
      ? handler
      : intercepted(bound, chain(interceptors, last));
  const traced = intercepted(bound, chain([tracing, ...(interceptors ?? [])], last));
  return (input, ctx) => (serverCallStart.hasSubscribers ? traced(input, ctx) : plain(input, ctx));
}

/** A handler that runs `next` on the request it builds and unwraps the response. */
function intercepted(bound: BoundMethod, next: CallNext): Handler {
  const info = methodInfo(bound);
  return (input, ctx) => {
    const request = {
      side: "server",
      stream: info.stream,
      service: info.service,
      method: info.method,
      path: info.path,
      kind: info.kind,
      metadata: ctx.metadata,
      timeoutMs: ctx.deadline === undefined ? undefined : Math.max(0, ctx.deadline - Date.now()),
      signal: ctx.signal,
      peer: ctx.peer,
      context: ctx,
      message: input,
    } as CallRequest;
    return runChain(next, request, info.responseStream);
  };
}

/** The end of a server chain: the handler, with the request message the chain left. */
function handlerCall(bound: BoundMethod, handler: Handler): CallNext {
  const responseStream = streamsResponses(bound.kind);
  return async (request) => {
    const ctx = request.context as HandlerContext;
    const out = handler(request.message, ctx);
    const headers = ctx.responseHeaders;
    const trailers = ctx.trailers;
    if (responseStream) {
      return {
        stream: true,
        message: out as AsyncIterable<unknown>,
        headers,
        trailers,
      } satisfies CallResponse;
    }
    return { stream: false, message: await out, headers, trailers } satisfies CallResponse;
  };
}
