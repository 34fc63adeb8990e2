/** The Transport interface services are written against: servers, clients, calls, contexts. */
import type { HandlerContext, Metadata } from "./call-context.js";
import type { Codec } from "./codec.js";
import type { Interceptor } from "./intercept/interceptor.js";
import type { MethodDefinition, ServiceDefinition } from "./service.js";

export type { HandlerContext, Metadata } from "./call-context.js";

/** Per-call options on the client side. */
export interface CallOptions {
  /** Deadline relative to the call's start, in ms. The server sees it too. Default: none. */
  timeoutMs?: number;
  /** Aborting cancels the call on both sides; the call rejects with CANCELLED. */
  signal?: AbortSignal;
  /** Request metadata (headers). */
  metadata?: Metadata;
  /**
   * Called once with the response headers (`{}` when the server sent none) when they arrive:
   * before the first response message is delivered, or the status when none came. As
   * connect-es's `onHeader`. Not called for a call that ended on this side first (cancelled,
   * its deadline, a lost connection).
   */
  onHeader?: (headers: Metadata) => void;
  /**
   * Called once with the response trailers when the server's status arrives, OK or not (`{}`
   * when it sent none), before the promise settles or the response stream ends; an error also
   * keeps them in its `metadata`. The transport's own trailers (`nearwire-reason`,
   * `grpc-status`, …) are not among them. As connect-es's `onTrailer`. Not called for a call
   * that ended on this side first.
   */
  onTrailer?: (trailers: Metadata) => void;
  /**
   * On a reconnecting connection (`createReconnectingConnection`): true waits for a connection
   * (bounded by `timeoutMs` and `signal`) while it is being re-established; false fails the
   * call UNAVAILABLE at once while the connection is in transient failure. As gRPC's
   * wait-for-ready. A plain connection ignores it. Default false.
   */
  waitForReady?: boolean;
  /**
   * For a response stream (server-streaming, bidi): the caller is done with each response once
   * it asks the stream for the next one (the next turn of its `for await`) and keeps neither
   * the message nor a view of its bytes past that point. The engine may then give the message's
   * receive buffer back to the channel for a later frame (a socket channel reads the next large
   * message into it), instead of leaving one buffer per message to the garbage collector: the
   * client side of `lendMessages`. Ignored on other calls, on a client with interceptors
   * (one could keep messages), while diagnostics subscribers are listening, and on transports
   * whose client does not reuse buffers. Default false.
   */
  lendMessages?: boolean;
}

/** The request message type of method `M` (what a client sends, what a handler receives). */
export type RequestOf<M> = M extends MethodDefinition<infer I, unknown> ? I : never;
/** The response message type of method `M` (what a handler returns, what a client receives). */
export type ResponseOf<M> = M extends MethodDefinition<unknown, infer O> ? O : never;

/** The handler type for one method, by kind. Throw a NearwireError to send its code. */
export type MethodImpl<M extends MethodDefinition> = M["kind"] extends "unary"
  ? (request: RequestOf<M>, ctx: HandlerContext) => Promise<ResponseOf<M>> | ResponseOf<M>
  : M["kind"] extends "server_streaming"
    ? (request: RequestOf<M>, ctx: HandlerContext) => AsyncIterable<ResponseOf<M>>
    : M["kind"] extends "client_streaming"
      ? (requests: AsyncIterable<RequestOf<M>>, ctx: HandlerContext) => Promise<ResponseOf<M>>
      : (
          requests: AsyncIterable<RequestOf<M>>,
          ctx: HandlerContext,
        ) => AsyncIterable<ResponseOf<M>>;

/** Handlers for every method of a service. */
export type ServiceImpl<S extends ServiceDefinition> = {
  [K in keyof S["methods"]]: MethodImpl<S["methods"][K]>;
};

/** The client call signature for one method, by kind. Failures reject with NearwireError. */
export type MethodClient<M extends MethodDefinition> = M["kind"] extends "unary"
  ? (request: RequestOf<M>, options?: CallOptions) => Promise<ResponseOf<M>>
  : M["kind"] extends "server_streaming"
    ? (request: RequestOf<M>, options?: CallOptions) => AsyncIterable<ResponseOf<M>>
    : M["kind"] extends "client_streaming"
      ? (
          requests: AsyncIterable<RequestOf<M>> | Iterable<RequestOf<M>>,
          options?: CallOptions,
        ) => Promise<ResponseOf<M>>
      : (
          requests: AsyncIterable<RequestOf<M>> | Iterable<RequestOf<M>>,
          options?: CallOptions,
        ) => AsyncIterable<ResponseOf<M>>;

/** A typed client for a service. */
export type Client<S extends ServiceDefinition> = {
  [K in keyof S["methods"]]: MethodClient<S["methods"][K]>;
};

/** How a service is bound when served or when a client is made. */
export interface BindOptions {
  /** The codec for this service's messages; another service may use another. */
  codec: Codec;
  /**
   * Interceptors of every call of this service, outermost first: `[a, b]` runs `a`, then `b`,
   * then the call (client) or the handler (server). The same type serves both sides, as in
   * connect-es. Default none (no cost per call).
   */
  interceptors?: readonly Interceptor[];
}

/** A server of one transport; add services, then listen. */
export interface Server {
  /** Adds a service with its handlers and codec. Call before `listen`. */
  addService<S extends ServiceDefinition>(
    service: S,
    impl: ServiceImpl<S>,
    options: BindOptions,
  ): this;
  /** Binds the transport's address and starts serving. */
  listen(): Promise<void>;
  /** The bound address (after `listen`). */
  readonly address: string;
  /**
   * Graceful close: stops accepting, lets in-flight calls finish for up to `graceMs`
   * (default 5000), then cancels what remains and closes every connection.
   */
  close(options?: { graceMs?: number }): Promise<void>;
  /**
   * `close()` with the default grace, so that `await using server = transport.createServer()`
   * closes the server (and removes its socket file) when the scope ends.
   */
  [Symbol.asyncDispose](): Promise<void>;
}

/** A client-side connection; makes typed clients for any number of services. */
export interface ClientConnection {
  /** A typed client for `service`, with its own codec. */
  client<S extends ServiceDefinition>(service: S, options: BindOptions): Client<S>;
  /** Closes the connection; calls still in flight fail with UNAVAILABLE. */
  close(): Promise<void>;
  /** `close()`, so that `await using conn = await transport.connect()` closes it at scope end. */
  [Symbol.asyncDispose](): Promise<void>;
  /** Resolves when the connection has closed: undefined for a clean close, else the error. */
  readonly closed: Promise<Error | undefined>;
}

/**
 * The one interface a service is written against: a transport serves service definitions
 * and connects typed clients. Which transport and which codec a service uses is configuration.
 */
export interface Transport {
  /** Transport name for reports: `uds`, `tcp`, `grpc-uds`, `shm-ring`. */
  readonly name: string;
  /** A new server on this transport's address. */
  createServer(): Server;
  /** Connects to this transport's address. */
  connect(): Promise<ClientConnection>;
}
