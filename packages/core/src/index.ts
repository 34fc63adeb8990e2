export type { Channel, ChannelHandler, ChannelListener, ChannelProvider } from "./channel.js";
export { Code, codeName, isCode } from "./code.js";
export type { Codec, MessageCodec, MessageType } from "./codec.js";
export { createCodec, messageType } from "./codec.js";
export type {
  HealthCheckRequest,
  HealthCheckResponse,
  ServingStatusValue,
} from "./health/health-codec.js";
export { healthCodec, ServingStatus } from "./health/health-codec.js";
export type { HealthService, HealthServiceOptions } from "./health/health-service.js";
export { createHealthService, HealthDefinition } from "./health/health-service.js";
export type { Authorize } from "./intercept/auth.js";
export { authInterceptor, bearerToken } from "./intercept/auth.js";
export {
  deadlinePropagation,
  withoutDeadlinePropagation,
} from "./intercept/deadline-propagation.js";
export type {
  CallEndEvent,
  CallErrorEvent,
  CallStartEvent,
} from "./intercept/diagnostics.js";
export type {
  CallNext,
  CallRequest,
  CallResponse,
  Interceptor,
  StreamRequest,
  StreamResponse,
  UnaryRequest,
  UnaryResponse,
} from "./intercept/interceptor.js";
export type { LoggingOptions } from "./intercept/logging.js";
export { loggingInterceptor } from "./intercept/logging.js";
export { jsonCodec } from "./json-codec.js";
export type { MemoryTransportOptions } from "./memory/memory-transport.js";
export { createMemoryTransport } from "./memory/memory-transport.js";
export type { ErrorReason, NearwireErrorOptions } from "./nearwire-error.js";
export { NearwireError } from "./nearwire-error.js";
export type { Peer, PeerAuthorizationOptions } from "./peer.js";
export type { ConnectionBackoffOptions } from "./reconnect/backoff.js";
export type { ConnectivityState } from "./reconnect/connection-keeper.js";
export type { ReconnectOptions, RetryPolicy } from "./reconnect/reconnect-options.js";
export type { ReconnectingConnection } from "./reconnect/reconnecting-connection.js";
export { createReconnectingConnection } from "./reconnect/reconnecting-connection.js";
export type { EachMessage } from "./rpc/for-each-message.js";
export { forEachMessage } from "./rpc/for-each-message.js";
export type { HandlerErrorHook, HandlerErrorInfo } from "./rpc/handler-error.js";
export { logHandlerError } from "./rpc/handler-error.js";
export { lendMessages } from "./rpc/lend-messages.js";
export type { SideDoorIterator } from "./rpc/next-now.js";
export { nextNow, whenReady } from "./rpc/next-now.js";
export type { RpcOptions } from "./rpc/rpc-server.js";
export { DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_MESSAGE_BYTES } from "./rpc/rpc-server.js";
export { connectRpc, createRpcTransport } from "./rpc/rpc-transport.js";
export type { ServerCloseAware } from "./server-close-hook.js";
export { onServerClose } from "./server-close-hook.js";
export type { MethodDefinition, MethodKind, ServiceDefinition } from "./service.js";
export {
  bidiStreaming,
  clientStreaming,
  defineService,
  methodPath,
  serverStreaming,
  unary,
} from "./service.js";
export type {
  BindOptions,
  CallOptions,
  Client,
  ClientConnection,
  HandlerContext,
  Metadata,
  MethodClient,
  MethodImpl,
  RequestOf,
  ResponseOf,
  Server,
  ServiceImpl,
  Transport,
} from "./transport.js";
