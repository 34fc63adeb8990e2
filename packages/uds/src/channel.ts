/**
 * `@nearwire/uds/channel`: the stream-socket Channel under `createUdsChannelProvider`, and its
 * tuning constants — for tests and for running frame v1 over a socket you connected yourself.
 * Services use `createUdsTransport` from the package root instead.
 */
export type { SocketChannelOptions } from "./socket-channel.js";
export {
  BATCH_BYTES,
  GOAWAY_LINGER_MS,
  LARGE_PAYLOAD_BYTES,
  PREFACE_MAX_PAYLOAD_BYTES,
  SocketChannel,
} from "./socket-channel.js";
