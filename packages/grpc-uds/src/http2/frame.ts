/**
 * HTTP/2 frames (RFC 9113 §4.1, §6): the layout, types, flags, settings and error codes.
 *
 * ```
 * offset  size  field
 * 0       3     length: payload bytes, unsigned big-endian (≤ the receiver's SETTINGS_MAX_FRAME_SIZE)
 * 3       1     type (FrameType)
 * 4       1     flags (FrameFlag; meaning per type)
 * 5       4     R (1 bit, ignored) + stream id (31 bits, big-endian); 0 = the connection
 * 9       n     payload
 * ```
 *
 * A connection starts with the client's 24-byte preface {@link CLIENT_PREFACE}, then each side's
 * SETTINGS frame (RFC 9113 §3.4).
 */

/** Size of a frame header, bytes. */
export const FRAME_HEADER_BYTES = 9;

/** The client connection preface: `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n` (RFC 9113 §3.4). */
export const CLIENT_PREFACE: Buffer = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/** Frame types (RFC 9113 §6). Other values are extension frames, ignored. */
export const FrameType = {
  DATA: 0x0,
  HEADERS: 0x1,
  PRIORITY: 0x2,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

/** Frame flags (RFC 9113 §6). ACK shares END_STREAM's bit (SETTINGS and PING only). */
export const FrameFlag = {
  END_STREAM: 0x1,
  ACK: 0x1,
  END_HEADERS: 0x4,
  PADDED: 0x8,
  PRIORITY: 0x20,
} as const;

/** SETTINGS parameters (RFC 9113 §6.5.2). */
export const SettingId = {
  HEADER_TABLE_SIZE: 0x1,
  ENABLE_PUSH: 0x2,
  MAX_CONCURRENT_STREAMS: 0x3,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
  MAX_HEADER_LIST_SIZE: 0x6,
} as const;

/** Error codes of RST_STREAM and GOAWAY (RFC 9113 §7). */
export const H2Code = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  SETTINGS_TIMEOUT: 0x4,
  STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
  CONNECT_ERROR: 0xa,
  ENHANCE_YOUR_CALM: 0xb,
  INADEQUATE_SECURITY: 0xc,
  HTTP_1_1_REQUIRED: 0xd,
} as const;

const H2_CODE_NAMES = Object.fromEntries(Object.entries(H2Code).map(([name, v]) => [v, name]));

/** The RFC's name of an HTTP/2 error code (`PROTOCOL_ERROR`), or `0x…` for an unknown one. */
export function h2CodeName(code: number): string {
  return H2_CODE_NAMES[code] ?? `0x${code.toString(16)}`;
}

/** Defaults before a peer's SETTINGS say otherwise (RFC 9113 §6.5.2). */
export const DEFAULT_WINDOW_BYTES = 65_535;
/** Smallest (and default) SETTINGS_MAX_FRAME_SIZE. */
export const MIN_MAX_FRAME_BYTES = 16_384;
/** Largest SETTINGS_MAX_FRAME_SIZE: 2^24 − 1. */
export const MAX_MAX_FRAME_BYTES = 16_777_215;
/** Largest flow-control window: 2^31 − 1. */
export const MAX_WINDOW_BYTES = 0x7fff_ffff;

/**
 * An HTTP/2 error found in what the peer sent: a connection error (`streamId` 0: GOAWAY with
 * `code`, then close) or a stream error (RST_STREAM with `code` on `streamId`).
 */
export class Http2Error extends Error {
  override name = "Http2Error";
  constructor(
    readonly code: number,
    message: string,
    readonly streamId = 0,
  ) {
    super(message);
  }
}

/** Writes a frame header at `at` (see the layout above). */
export function writeFrameHeader(
  dest: Uint8Array,
  at: number,
  length: number,
  type: number,
  flags: number,
  streamId: number,
): void {
  dest[at] = length >>> 16;
  dest[at + 1] = (length >>> 8) & 0xff;
  dest[at + 2] = length & 0xff;
  dest[at + 3] = type;
  dest[at + 4] = flags;
  dest[at + 5] = (streamId >>> 24) & 0x7f;
  dest[at + 6] = (streamId >>> 16) & 0xff;
  dest[at + 7] = (streamId >>> 8) & 0xff;
  dest[at + 8] = streamId & 0xff;
}

/** Reads a big-endian u32 at `at`. */
export function readU32(src: Uint8Array, at: number): number {
  return (
    (((src[at] as number) << 24) |
      ((src[at + 1] as number) << 16) |
      ((src[at + 2] as number) << 8) |
      (src[at + 3] as number)) >>>
    0
  );
}

/** Writes a big-endian u32 at `at`. */
export function writeU32(dest: Uint8Array, at: number, value: number): void {
  dest[at] = value >>> 24;
  dest[at + 1] = (value >>> 16) & 0xff;
  dest[at + 2] = (value >>> 8) & 0xff;
  dest[at + 3] = value & 0xff;
}
