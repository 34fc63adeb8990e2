export type { ShmRingOptions, WaitMode } from "./shm-ring-options.js";
export { createShmRingChannelProvider } from "./shm-ring-provider.js";
export type { ShmRingTransportOptions } from "./shm-ring-transport.js";
export { createShmRingTransport, maxFrameBytesFor } from "./shm-ring-transport.js";
