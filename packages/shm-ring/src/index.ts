export type { RecordSink, SegmentHeader } from "@nearwire/ring";
export {
  checkHeader,
  DEFAULT_RING_BYTES,
  HEADER_BYTES,
  LAYOUT_VERSION,
  MAGIC,
  MAX_RING_BYTES,
  MIN_RING_BYTES,
  maxPayloadFor,
  RingReader,
  RingWriter,
  readHeader,
  segmentBytesFor,
  TYPE_FRAGMENT,
  writeHeader,
} from "@nearwire/ring";
export { addonPath } from "./native.js";
export type { CreatedSegment, Segment } from "./segment.js";
export { attachSegment, createSegment } from "./segment.js";
export type { ShmRingChannelParts, WaitMode } from "./shm-ring-channel.js";
export { ShmRingChannel } from "./shm-ring-channel.js";
export type { ShmRingOptions } from "./shm-ring-options.js";
export { createShmRingChannelProvider } from "./shm-ring-provider.js";
export type { ShmRingTransportOptions } from "./shm-ring-transport.js";
export { createShmRingTransport, maxFrameBytesFor } from "./shm-ring-transport.js";
