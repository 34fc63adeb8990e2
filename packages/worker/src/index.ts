export type { WaitMode, WorkerChannelOptions, WorkerEndpoint } from "./worker-options.js";
export type { WorkerPool, WorkerPoolOptions } from "./worker-pool.js";
export { createWorkerPool } from "./worker-pool.js";
export { createWorkerChannelProvider } from "./worker-provider.js";
export type { WorkerTransportOptions } from "./worker-transport.js";
export { createWorkerTransport } from "./worker-transport.js";
