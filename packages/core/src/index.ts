export type { Channel, ChannelHandler, ChannelListener, ChannelProvider } from "./channel.js";
export { Code, codeName, isCode } from "./code.js";
export type { Codec, MessageCodec, MessageType } from "./codec.js";
export { messageType } from "./codec.js";
export { FrameType } from "./frame-type.js";
export type { FrameTypeValue } from "./frame-type.js";
export { jsonCodec } from "./json-codec.js";
export { NearwireError } from "./nearwire-error.js";
export type { ErrorReason, NearwireErrorOptions } from "./nearwire-error.js";
export type { MethodDefinition, MethodKind, ServiceDefinition } from "./service.js";
export { bidiStreaming, clientStreaming, defineService, methodPath, serverStreaming, unary } from "./service.js";
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
