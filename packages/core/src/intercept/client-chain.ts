/**
 * The typed client methods of every transport: the transport's call for each method, with the
 * service's interceptors (and the diagnostics events while someone subscribes) around it.
 */
import type { BoundMethod } from "../rpc/bound-method.js";
import type { CallOptions, Metadata } from "../transport.js";
import { clientCallStart, diagnosticsInterceptor } from "./diagnostics.js";
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

/** A transport's call of one method: a promise of the response, or the response stream. */
export type ClientMethod = (input: unknown, options: CallOptions | undefined) => unknown;

/** The caller's options of a call, kept with its request for the transport at the end. */
const OPTIONS = Symbol("call options");
type ClientRequest = CallRequest & { [OPTIONS]?: CallOptions | undefined };

const tracing = diagnosticsInterceptor("client");

/**
 * The method a client of `bound` exposes: `call` itself when there are no interceptors and
 * nobody subscribes to `nearwire:client:call:start`; otherwise the chain around it.
 */
export function clientMethod(
  bound: BoundMethod,
  call: ClientMethod,
  interceptors: readonly Interceptor[] | undefined,
  /** False: no diagnostics events here (the calls `call` makes publish them). */
  diagnostics = true,
): ClientMethod {
  const last = transportCall(bound, call);
  const plain =
    interceptors === undefined || interceptors.length === 0
      ? call
      : intercepted(bound, chain(interceptors, last));
  if (!diagnostics) return plain;
  const traced = intercepted(bound, chain([tracing, ...(interceptors ?? [])], last));
  return (input, options) =>
    clientCallStart.hasSubscribers ? traced(input, options) : plain(input, options);
}

/** A method that runs `next` on the request it builds and unwraps the response. */
function intercepted(bound: BoundMethod, next: CallNext): ClientMethod {
  const info = methodInfo(bound);
  return (input, options) => {
    const request = {
      side: "client",
      stream: info.stream,
      service: info.service,
      method: info.method,
      path: info.path,
      kind: info.kind,
      metadata: { ...options?.metadata },
      timeoutMs: options?.timeoutMs,
      signal: options?.signal,
      peer: undefined,
      context: undefined,
      message: input,
      [OPTIONS]: options,
    } as ClientRequest;
    return runChain(next, request, info.responseStream);
  };
}

/** The end of a client chain: the transport's call, with the request as the chain left it. */
function transportCall(bound: BoundMethod, call: ClientMethod): CallNext {
  const responseStream = streamsResponses(bound.kind);
  return (request: ClientRequest) => {
    const caller = request[OPTIONS];
    const headers: Metadata = {};
    const trailers: Metadata = {};
    const options: CallOptions = {
      onHeader: (h) => {
        Object.assign(headers, h);
        caller?.onHeader?.(h);
      },
      onTrailer: (t) => {
        Object.assign(trailers, t);
        caller?.onTrailer?.(t);
      },
    };
    if (Object.keys(request.metadata).length > 0) options.metadata = request.metadata;
    if (request.timeoutMs !== undefined) options.timeoutMs = request.timeoutMs;
    if (request.signal !== undefined) options.signal = request.signal;
    const out = call(request.message, options);
    if (responseStream) {
      return Promise.resolve({
        stream: true,
        message: out as AsyncIterable<unknown>,
        headers,
        trailers,
      } satisfies CallResponse);
    }
    return (out as Promise<unknown>).then(
      (message): CallResponse => ({ stream: false, message, headers, trailers }),
    );
  };
}
