/**
 * Interceptors: the types of a call as an interceptor sees it, on the client and on the server.
 * The shape is connect-es's (`(next) => async (req) => next(req)`, a `stream` flag on the
 * request and the response), with one type for both sides.
 */

import type { HandlerContext, Metadata } from "../call-context.js";
import type { Peer } from "../peer.js";
import type { BoundMethod } from "../rpc/bound-method.js";
import type { MethodKind } from "../service.js";

/** What every request carries, on either side. */
interface RequestBase {
  /** `client` in a client's chain, `server` in a server's. */
  readonly side: "client" | "server";
  /** The service's full name, `package.Service`. */
  readonly service: string;
  /** The method's name in its service definition. */
  readonly method: string;
  /** The wire path, `/package.Service/Method`. */
  readonly path: string;
  readonly kind: MethodKind;
  /**
   * Request metadata (headers). A client interceptor may add, change or delete entries: the
   * call sends what is here when it reaches the transport.
   */
  readonly metadata: Metadata;
  /**
   * Client: the call's timeout, ms; an interceptor may set or shorten it. Server: the time
   * left before the call's deadline when the handler was called. Undefined: no deadline.
   */
  timeoutMs: number | undefined;
  /**
   * Client: the call's abort signal; an interceptor may replace it (combine with
   * `AbortSignal.any`). Server: the handler's `ctx.signal`.
   */
  signal: AbortSignal | undefined;
  /** Server: the connection's peer (`ctx.peer`). Client: undefined. */
  readonly peer: Peer | undefined;
  /** Server: the handler's context. Client: undefined. */
  readonly context: HandlerContext | undefined;
}

/** A call whose request is one message (unary, server streaming). */
export interface UnaryRequest extends RequestBase {
  readonly stream: false;
  /** The request message; an interceptor may replace it. */
  message: unknown;
}

/** A call whose request is a stream (client streaming, bidi). */
export interface StreamRequest extends RequestBase {
  readonly stream: true;
  /**
   * The request messages as the caller gave them (an async iterable, or on the client any
   * iterable); an interceptor may wrap or replace it.
   */
  message: AsyncIterable<unknown> | Iterable<unknown>;
}

/** What an interceptor is given: the request as a message or as a stream. */
export type CallRequest = UnaryRequest | StreamRequest;

/** What both response shapes carry. */
interface ResponseBase {
  /**
   * Response headers. Client: filled when they arrive (for a streamed response, by the time
   * the first message is delivered). Server: the handler's `ctx.responseHeaders`; add
   * entries before the first message goes out.
   */
  readonly headers: Metadata;
  /**
   * Response trailers. Client: filled when the call ends (for a streamed response, when the
   * stream has ended). Server: the handler's `ctx.trailers`; add entries until it ends.
   */
  readonly trailers: Metadata;
}

/** A call answered with one message (unary, client streaming). */
export interface UnaryResponse extends ResponseBase {
  readonly stream: false;
  /** The response message; an interceptor may replace it. */
  message: unknown;
}

/** A call answered with a stream (server streaming, bidi). */
export interface StreamResponse extends ResponseBase {
  readonly stream: true;
  /** The response messages; an interceptor may wrap or replace the iterable. */
  message: AsyncIterable<unknown>;
}

/** What a call answers, as an interceptor sees it. */
export type CallResponse = UnaryResponse | StreamResponse;

/**
 * The rest of the chain: the next interceptor, and at the end the call itself (client) or the
 * handler (server). Rejects with the call's NearwireError.
 */
export type CallNext = (request: CallRequest) => Promise<CallResponse>;

/**
 * Wraps a call: sees and may change the request (metadata, message or stream, deadline,
 * signal) before calling `next`, and the response (message or stream, headers, trailers) or
 * the error after; throwing a NearwireError instead of calling `next` short-circuits the call
 * with it.
 *
 * @example
 * ```ts
 * import type { Interceptor } from "@nearwire/core";
 *
 * const stamp: Interceptor = (next) => async (req) => {
 *   if (req.side === "client") req.metadata["x-sent-at"] = String(Date.now());
 *   const res = await next(req);
 *   res.trailers["x-handled"] = "yes"; // server: sent to the client with the status
 *   return res;
 * };
 * // server.addService(Greeter, impl, { codec, interceptors: [stamp] })
 * // connection.client(Greeter, { codec, interceptors: [stamp] })
 * ```
 */
export type Interceptor = (next: CallNext) => CallNext;

/** `interceptors` applied around `last`, the first one outermost. */
export function chain(interceptors: readonly Interceptor[], last: CallNext): CallNext {
  let next = last;
  for (let i = interceptors.length - 1; i >= 0; i--) next = (interceptors[i] as Interceptor)(next);
  return next;
}

/** Whether a method of `kind` takes a stream of requests. */
export function streamsRequests(kind: MethodKind): boolean {
  return kind === "client_streaming" || kind === "bidi_streaming";
}

/** Whether a method of `kind` answers with a stream. */
export function streamsResponses(kind: MethodKind): boolean {
  return kind === "server_streaming" || kind === "bidi_streaming";
}

/** What every request of a method carries, computed once per method. */
export interface MethodInfo {
  readonly stream: boolean;
  readonly service: string;
  readonly method: string;
  readonly path: string;
  readonly kind: MethodKind;
  /** The method answers with a stream. */
  readonly responseStream: boolean;
}

/** The {@link MethodInfo} of a bound method. */
export function methodInfo(bound: BoundMethod): MethodInfo {
  return {
    stream: streamsRequests(bound.kind),
    service: bound.path.slice(1, bound.path.lastIndexOf("/")),
    method: bound.name,
    path: bound.path,
    kind: bound.kind,
    responseStream: streamsResponses(bound.kind),
  };
}

/**
 * Runs the chain `next` on `request` and gives the caller (the typed client, or the engine
 * that called the handler) what it expects: the response message's promise, or the stream.
 */
export function runChain(next: CallNext, request: CallRequest, responseStream: boolean): unknown {
  let response: Promise<CallResponse>;
  try {
    response = next(request);
  } catch (err) {
    response = Promise.reject(err);
  }
  if (!responseStream) return response.then((r) => r.message);
  return streamOf(response);
}

/** The response stream of a chain's response. */
async function* streamOf(
  response: Promise<CallResponse>,
): AsyncGenerator<unknown, void, undefined> {
  yield* (await response).message as AsyncIterable<unknown>;
}
