export type { SocketChannelOptions } from "./socket-channel.js";
export {
  BATCH_BYTES,
  GOAWAY_LINGER_MS,
  LARGE_PAYLOAD_BYTES,
  PREFACE_MAX_PAYLOAD_BYTES,
  SocketChannel,
} from "./socket-channel.js";
export type { UdsChannelOptions } from "./uds-channel-provider.js";
export { createUdsChannelProvider } from "./uds-channel-provider.js";
export type { UdsTransportOptions } from "./uds-transport.js";
export { createUdsTransport } from "./uds-transport.js";
