/**
 * `@nearwire/shm-ring/segment`: the segments under `createShmRingChannelProvider`, for tests and
 * tools — a /dev/shm segment made or attached through the addon (`createSegment`,
 * `attachSegment`) and the path of the loaded addon (`addonPath`). Not needed to serve or call.
 */
export { addonPath } from "./native.js";
export type { CreatedSegment, Segment } from "./segment.js";
export { attachSegment, createSegment } from "./segment.js";
