/**
 * `@nearwire/uds/channel`: the stream-socket Channel under `createUdsChannelProvider`, and its
 * tuning constants — for tests and for running frame v1 over a socket you connected yourself.
 * Services use `createUdsTransport` from the package root instead.
 */

export type { ReadSink } from "@nearwire/socket";
export { adoptAccepted, READ_BUFFER_BYTES, SocketReader } from "@nearwire/socket";
export { BATCH_BYTES, LARGE_PAYLOAD_BYTES } from "./batch-writer.js";
export type { SocketChannelOptions } from "./socket-channel.js";
export { GOAWAY_LINGER_MS, SocketChannel } from "./socket-channel.js";
export { PREFACE_MAX_PAYLOAD_BYTES } from "./socket-preface.js";
