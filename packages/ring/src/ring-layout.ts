import { Code, NearwireError } from "@nearwire/core";

/*
 * Segment layout, version 1 (mirrors shm-ring's native/ring.h; PROTOCOL.md section 6 is the spec).
 * All integers little-endian; C = ring capacity in bytes, a power of two.
 *
 *   offset     size  what
 *   0          4096  header: magic u32 | layout u32 | headerBytes u32 | rings u32 |
 *                            capacity u64 | maxPayload u64 | segmentBytes u64 | nonce u64
 *   512         512  ring 0 control (client -> server)
 *   1024        512  ring 1 control (server -> client)
 *   4096          C  ring 0 data
 *   4096 + C      C  ring 1 data
 *
 * Ring control, one 128-byte line per field:
 *   +0 producer position u64 (advisory) | +128 consumer position u64 |
 *   +256 consumer parked i32 | +384 producer waiting i32
 *
 * Record (8-byte aligned, contiguous; a padding record fills the end of the ring on wrap):
 *   +0 word u32 = 0x80000000 | N (stored last: publishes) | +4 type u8 | +5 zero[3] | +8 payload[N]
 *   type 0x00 padding, 0x01 fragment (the frame goes on in the next record), 0x10..0xff a frame
 *   (or the last piece of a fragmented one)
 */

/** `NWSR` as a little-endian u32. */
export const MAGIC = 0x5253574e;
/** Layout version written in the header and checked at attach. */
export const LAYOUT_VERSION = 1;
/** Segment header bytes; ring 0 data starts here. */
export const HEADER_BYTES = 4096;
/** Byte offset of the control block of ring `i` (0: client → server, 1: server → client). */
export const RING_CONTROL_OFFSETS = [512, 1024] as const;
/** Offsets inside a ring control block. */
export const CONTROL = {
  producerPosition: 0,
  consumerPosition: 128,
  consumerParked: 256,
  producerWaiting: 384,
} as const;
/** Record header bytes (word + type + pad); payloads start 8-byte aligned. */
export const RECORD_HEADER_BYTES = 8;
/** Bit 31 of a record word: the record is published. */
export const COMMITTED = 0x80000000;
/** Record type of a padding record (skip to the end of the ring). */
export const TYPE_PADDING = 0x00;
/**
 * Record type of a fragment: the first or a middle piece of a frame too large for one record;
 * the frame goes on in the next record, and its last piece carries the frame's type.
 */
export const TYPE_FRAGMENT = 0x01;
/** Smallest ring capacity: 4 KiB. */
export const MIN_RING_BYTES = 4096;
/** Largest ring capacity: 1 GiB (positions are compared modulo 2^32). */
export const MAX_RING_BYTES = 2 ** 30;
/** Default ring capacity per direction: 4 MiB (a 1 MiB message fits with room to spare). */
export const DEFAULT_RING_BYTES = 4 * 1024 * 1024;

/** Largest payload one record of a ring of `ringBytes` carries: `ringBytes / 2 - 16`. */
export function maxPayloadFor(ringBytes: number): number {
  return ringBytes / 2 - 16;
}

/** Total segment bytes for two rings of `ringBytes`. */
export function segmentBytesFor(ringBytes: number): number {
  return HEADER_BYTES + 2 * ringBytes;
}

/** Throws INVALID_ARGUMENT unless `ringBytes` is a power of two in [4 KiB, 1 GiB]. */
export function checkRingBytes(ringBytes: number): void {
  if (
    !Number.isInteger(ringBytes) ||
    ringBytes < MIN_RING_BYTES ||
    ringBytes > MAX_RING_BYTES ||
    (ringBytes & (ringBytes - 1)) !== 0
  ) {
    throw new NearwireError(
      Code.InvalidArgument,
      `ringBytes ${ringBytes} is not a power of two in [${MIN_RING_BYTES}, ${MAX_RING_BYTES}]`,
    );
  }
}

/** What a segment header says. */
export interface SegmentHeader {
  magic: number;
  layoutVersion: number;
  headerBytes: number;
  rings: number;
  ringBytes: number;
  maxPayloadBytes: number;
  segmentBytes: number;
  /** 64-bit nonce as 16 hex digits. */
  nonce: string;
}

/** Writes a version-1 header for rings of `ringBytes` with `nonce` (16 hex digits). */
export function writeHeader(buffer: ArrayBufferLike, ringBytes: number, nonce: string): void {
  const v = new DataView(buffer);
  v.setUint32(0, MAGIC, true);
  v.setUint32(4, LAYOUT_VERSION, true);
  v.setUint32(8, HEADER_BYTES, true);
  v.setUint32(12, 2, true);
  v.setBigUint64(16, BigInt(ringBytes), true);
  v.setBigUint64(24, BigInt(maxPayloadFor(ringBytes)), true);
  v.setBigUint64(32, BigInt(segmentBytesFor(ringBytes)), true);
  v.setBigUint64(40, BigInt(`0x${nonce}`), true);
}

/** Reads the header fields of a mapped segment (at least HEADER_BYTES long). */
export function readHeader(buffer: ArrayBufferLike): SegmentHeader {
  const v = new DataView(buffer);
  return {
    magic: v.getUint32(0, true),
    layoutVersion: v.getUint32(4, true),
    headerBytes: v.getUint32(8, true),
    rings: v.getUint32(12, true),
    ringBytes: Number(v.getBigUint64(16, true)),
    maxPayloadBytes: Number(v.getBigUint64(24, true)),
    segmentBytes: Number(v.getBigUint64(32, true)),
    nonce: v.getBigUint64(40, true).toString(16).padStart(16, "0"),
  };
}

/**
 * Checks a mapped segment's header against this implementation and the handshake: throws
 * FAILED_PRECONDITION reason `layout-mismatch` naming both values on any difference.
 */
export function checkHeader(
  buffer: ArrayBufferLike,
  expected: { ringBytes: number; nonce: string },
): SegmentHeader {
  const h = readHeader(buffer);
  const mismatch = (what: string, got: number | string, want: number | string): never => {
    throw new NearwireError(Code.FailedPrecondition, `segment ${what} ${got} != expected ${want}`, {
      reason: "layout-mismatch",
    });
  };
  const hex = (n: number) => `0x${n.toString(16)}`;
  if (h.magic !== MAGIC) mismatch("magic", hex(h.magic), hex(MAGIC));
  if (h.layoutVersion !== LAYOUT_VERSION)
    mismatch("layout version", h.layoutVersion, LAYOUT_VERSION);
  if (h.headerBytes !== HEADER_BYTES) mismatch("header bytes", h.headerBytes, HEADER_BYTES);
  if (h.rings !== 2) mismatch("ring count", h.rings, 2);
  if (h.ringBytes !== expected.ringBytes) mismatch("ring bytes", h.ringBytes, expected.ringBytes);
  if (h.maxPayloadBytes !== maxPayloadFor(h.ringBytes)) {
    mismatch("max payload bytes", h.maxPayloadBytes, maxPayloadFor(h.ringBytes));
  }
  const want = segmentBytesFor(h.ringBytes);
  if (h.segmentBytes !== want) mismatch("bytes (header)", h.segmentBytes, want);
  if (buffer.byteLength !== want) mismatch("bytes (mapped)", buffer.byteLength, want);
  if (h.nonce !== expected.nonce) mismatch("nonce", h.nonce, expected.nonce);
  return h;
}
