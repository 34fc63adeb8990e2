/**
 * `@nearwire/shm-ring/channel`: the Channel under `createShmRingChannelProvider` — over a
 * segment's two rings, with its doorbells and end on the control socket (`ShmRingChannel`) —
 * for tests and tools. Not needed to serve or call.
 */

export { ControlReads } from "./control-socket.js";
export type { ShmRingChannelParts } from "./shm-ring-channel.js";
export { ShmRingChannel } from "./shm-ring-channel.js";
