export type { UdsChannelOptions } from "./uds-channel-provider.js";
export { createUdsChannelProvider } from "./uds-channel-provider.js";
export type { UdsTransportOptions } from "./uds-transport.js";
export { createUdsTransport } from "./uds-transport.js";
