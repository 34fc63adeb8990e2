/**
 * `@nearwire/worker/channel`: the Channel under `createWorkerChannelProvider` — over the two
 * rings of a `SharedArrayBuffer`, with `Atomics` wake-ups (`WorkerChannel`) — for tests and
 * tools. Not needed to serve or call.
 */
export type { WorkerChannelParts } from "./worker-channel.js";
export { WorkerChannel } from "./worker-channel.js";
