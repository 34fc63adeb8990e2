/**
 * `@nearwire/shm-ring/segment`: the pieces under `createShmRingChannelProvider`, for tests and
 * tools — a /dev/shm segment made or attached through the addon (`createSegment`,
 * `attachSegment`), the Channel over a segment's two rings (`ShmRingChannel`), and the path of
 * the loaded addon (`addonPath`). Not needed to serve or call.
 */
export { addonPath } from "./native.js";
export type { CreatedSegment, Segment } from "./segment.js";
export { attachSegment, createSegment } from "./segment.js";
export type { ShmRingChannelParts } from "./shm-ring-channel.js";
export { ShmRingChannel } from "./shm-ring-channel.js";
