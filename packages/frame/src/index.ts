export type { Crc32cFn } from "./crc32c.js";
export {
  CRC32C_NATIVE_MIN_BYTES,
  crc32c,
  crc32cBackend,
  crc32cBackends,
  crc32cByte,
  crc32cImplementation,
  crc32cNative,
  crc32cPortable,
  crc32cRange,
} from "./crc32c.js";
export {
  encodeFrame,
  encodeFrameInto,
  frameChecksum,
  writeFrameHeader,
  writeFrameTrailer,
} from "./encode-frame.js";
export {
  DEFAULT_MAX_FRAME_BYTES,
  FRAME_HEADER_BYTES,
  FRAME_OVERHEAD_BYTES,
  FRAME_TRAILER_BYTES,
  MAX_FRAME_LENGTH_FIELD,
} from "./frame-constants.js";
export type { FrameDecoderOptions } from "./frame-decoder.js";
export { DIRECT_READ_MIN_BYTES, FrameDecoder, PEEK_READ_BYTES } from "./frame-decoder.js";
export type { DecodedHello, GoAway, Hello } from "./preface.js";
export {
  decodeGoAway,
  decodeHello,
  encodeGoAway,
  encodeHello,
  FEATURE_BATCH,
  FEATURE_CREDIT_BYTES,
  FEATURE_CREDIT_WINDOW,
  GOAWAY_MAX_MESSAGE_BYTES,
  HELLO_FEATURES_TAG,
  HELLO_MAGIC,
  HELLO_PAYLOAD_BYTES,
  HELLO_WITH_FEATURES_BYTES,
  HELLO_WITH_WINDOW_BYTES,
  MIN_MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
} from "./preface.js";
