export type { ParsedAddress } from "./parse-address.js";
export { formatTcp, MAX_UNIX_PATH_BYTES, netPath, parseAddress } from "./parse-address.js";
export type { SocketChannelOptions } from "./socket-channel.js";
export {
  BATCH_BYTES,
  GOAWAY_LINGER_MS,
  LARGE_PAYLOAD_BYTES,
  PREFACE_MAX_PAYLOAD_BYTES,
  SocketChannel,
} from "./socket-channel.js";
export type { StreamListener, StreamListenerOptions } from "./stream-listener.js";
export { bindStreamListener, DEFAULT_BACKLOG, DEFAULT_SOCKET_MODE } from "./stream-listener.js";
export type { UdsChannelOptions } from "./uds-channel-provider.js";
export { createUdsChannelProvider } from "./uds-channel-provider.js";
export type { UdsTransportOptions } from "./uds-transport.js";
export { createUdsTransport } from "./uds-transport.js";
