export type { Channel, ChannelHandler, ChannelListener, ChannelProvider } from "./channel.js";
export { checkSend, isSendableType } from "./check-send.js";
export { Code, codeName, isCode } from "./code.js";
export type { Codec, MessageCodec, MessageType } from "./codec.js";
export { createCodec, messageType } from "./codec.js";
export type { FrameTypeValue } from "./frame-type.js";
export { FrameType } from "./frame-type.js";
export { guardListen } from "./guard-listen.js";
export type {
  HealthCheckRequest,
  HealthCheckResponse,
  ServingStatusValue,
} from "./health/health-codec.js";
export { healthCodec, ServingStatus } from "./health/health-codec.js";
export type { HealthService, HealthServiceOptions } from "./health/health-service.js";
export { createHealthService, HealthDefinition } from "./health/health-service.js";
export { jsonCodec } from "./json-codec.js";
export { loadAddon } from "./load-addon.js";
export type { MemoryChannelOptions } from "./memory/memory-channel.js";
export { memoryChannelPair } from "./memory/memory-channel.js";
export type { MemoryTransportOptions } from "./memory/memory-transport.js";
export { createMemoryTransport } from "./memory/memory-transport.js";
export type { ErrorReason, NearwireErrorOptions } from "./nearwire-error.js";
export { NearwireError } from "./nearwire-error.js";
export type { Peer, PeerAuthorizationOptions } from "./peer.js";
export type { BoundMethod } from "./rpc/bound-method.js";
/** Method binding shared by every transport's servers and clients (grpc-uds included). */
export { bindHandlers, bindService } from "./rpc/bound-method.js";
export { timeoutError } from "./rpc/client-session.js";
/** Encoders and decoders of the RPC envelope (PROTOCOL.md §5), for tests and other clients. */
export * as envelope from "./rpc/envelope.js";
export type { ServedMethod } from "./rpc/method-table.js";
export type { RpcOptions } from "./rpc/rpc-server.js";
export {
  DEFAULT_MAX_CONCURRENT_CALLS,
  DEFAULT_MAX_MESSAGE_BYTES,
  ENVELOPE_HEADROOM_BYTES,
  RpcServer,
} from "./rpc/rpc-server.js";
export { connectRpc, createRpcTransport } from "./rpc/rpc-transport.js";
export type { ServerCloseAware } from "./server-close-hook.js";
export { onServerClose, serverCloseHook } from "./server-close-hook.js";
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
  Server,
  ServiceImpl,
  Transport,
} from "./transport.js";
