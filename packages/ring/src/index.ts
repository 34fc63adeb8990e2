export type { FeatureKeys } from "./features.js";
export {
  announcesBatch,
  announcesCreditBytes,
  answerFeatureKeys,
  checkCreditWindowOption,
  offerFeatureKeys,
  readCreditWindow,
  readFeatures,
} from "./features.js";
export {
  agreeMaxFrameBytes,
  checkMaxFrameBytes,
  DEFAULT_MAX_FRAME_BYTES,
  maxFrameBytesFor,
} from "./message-limits.js";
export type { RecordSink } from "./ring.js";
export { RingReader, RingWriter } from "./ring.js";
export type { RingChannelParts } from "./ring-channel.js";
export { RingChannel } from "./ring-channel.js";
export type { SegmentHeader } from "./ring-layout.js";
export {
  COMMITTED,
  CONTROL,
  checkHeader,
  checkRingBytes,
  DEFAULT_RING_BYTES,
  HEADER_BYTES,
  LAYOUT_VERSION,
  MAGIC,
  MAX_RING_BYTES,
  MIN_RING_BYTES,
  maxPayloadFor,
  RECORD_HEADER_BYTES,
  RING_CONTROL_OFFSETS,
  readHeader,
  segmentBytesFor,
  TYPE_FRAGMENT,
  TYPE_PADDING,
  writeHeader,
} from "./ring-layout.js";
export type { RingOptions, WaitMode } from "./ring-options.js";
