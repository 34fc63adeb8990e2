export type { Channel, ChannelHandler, ChannelListener, ChannelProvider } from "./channel.js";
// Transitional: still imported from the root by files being changed in parallel; use
// `@nearwire/core/protocol` and `@nearwire/core/transport-kit` (these lines go once they do).
/** @deprecated import from `@nearwire/core/transport-kit` */
export { checkSend, isSendableType } from "./check-send.js";
export { Code, codeName, isCode } from "./code.js";
export type { Codec, MessageCodec, MessageType } from "./codec.js";
export { createCodec, messageType } from "./codec.js";
/** @deprecated import from `@nearwire/core/protocol` */
export { FrameType } from "./frame-type.js";
export type {
  HealthCheckRequest,
  HealthCheckResponse,
  ServingStatusValue,
} from "./health/health-codec.js";
export { healthCodec, ServingStatus } from "./health/health-codec.js";
export type { HealthService, HealthServiceOptions } from "./health/health-service.js";
export { createHealthService, HealthDefinition } from "./health/health-service.js";
export { jsonCodec } from "./json-codec.js";
export type { MemoryTransportOptions } from "./memory/memory-transport.js";
export { createMemoryTransport } from "./memory/memory-transport.js";
export type { ErrorReason, NearwireErrorOptions } from "./nearwire-error.js";
export { NearwireError } from "./nearwire-error.js";
export type { Peer, PeerAuthorizationOptions } from "./peer.js";
/** @deprecated import from `@nearwire/core/protocol` */
export * as envelope from "./rpc/envelope.js";
export type { RpcOptions } from "./rpc/rpc-server.js";
/** @deprecated import from `@nearwire/core/protocol` */
export {
  DEFAULT_MAX_CONCURRENT_CALLS,
  DEFAULT_MAX_MESSAGE_BYTES,
  ENVELOPE_HEADROOM_BYTES,
} from "./rpc/rpc-server.js";
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
