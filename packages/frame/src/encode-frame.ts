/** Frame v1 encoding (PROTOCOL.md section 3): header, payload, CRC-32C trailer. */
import { Code, NearwireError } from "@nearwire/core";
import { crc32c, crc32cByte } from "./crc32c.js";
import {
  FRAME_HEADER_BYTES,
  FRAME_OVERHEAD_BYTES,
  MAX_FRAME_LENGTH_FIELD,
} from "./frame-constants.js";

/**
 * CRC-32C of a frame's type byte followed by its payload (the value of the frame trailer),
 * computed without concatenating them: the type byte's CRC is chained into the payload's.
 */
export function frameChecksum(type: number, payload: Uint8Array): number {
  return crc32c(payload, crc32cByte(type));
}

function checkType(type: number): void {
  if (!Number.isInteger(type) || type < 0 || type > 0xff) {
    throw new NearwireError(Code.InvalidArgument, `frame type ${type} is not a u8 (0..255)`, {
      reason: "malformed-frame",
    });
  }
}

/**
 * Writes the 5-byte header (u32 BE payload length, u8 type) at `dest[offset]`. Used with
 * {@link writeFrameTrailer} by senders that write a large payload as its own buffer.
 */
export function writeFrameHeader(
  dest: Uint8Array,
  offset: number,
  type: number,
  payloadBytes: number,
): void {
  dest[offset] = payloadBytes >>> 24;
  dest[offset + 1] = payloadBytes >>> 16;
  dest[offset + 2] = payloadBytes >>> 8;
  dest[offset + 3] = payloadBytes;
  dest[offset + 4] = type;
}

/** Writes the 4-byte trailer (u32 BE `checksum`, see {@link frameChecksum}) at `dest[offset]`. */
export function writeFrameTrailer(dest: Uint8Array, offset: number, checksum: number): void {
  dest[offset] = checksum >>> 24;
  dest[offset + 1] = checksum >>> 16;
  dest[offset + 2] = checksum >>> 8;
  dest[offset + 3] = checksum;
}

/**
 * Encodes one frame into `dest` at `offset` (for batching many frames into one buffer) and
 * returns the number of bytes written (`payload.length + 9`), or -1 when `dest` has too little
 * room after `offset` (nothing is written then). Throws INVALID_ARGUMENT (reason
 * `malformed-frame`) when `type` is not 0..255 or the payload exceeds 4 GiB − 1.
 */
export function encodeFrameInto(
  dest: Uint8Array,
  offset: number,
  type: number,
  payload: Uint8Array,
): number {
  checkType(type);
  const n = payload.length;
  if (n > MAX_FRAME_LENGTH_FIELD) {
    throw new NearwireError(
      Code.InvalidArgument,
      `payload ${n} B > frame length limit ${MAX_FRAME_LENGTH_FIELD}`,
      {
        reason: "malformed-frame",
      },
    );
  }
  const total = n + FRAME_OVERHEAD_BYTES;
  if (offset < 0 || offset + total > dest.length) return -1;
  writeFrameHeader(dest, offset, type, n);
  dest.set(payload, offset + FRAME_HEADER_BYTES);
  writeFrameTrailer(dest, offset + FRAME_HEADER_BYTES + n, frameChecksum(type, payload));
  return total;
}

/** Encodes one frame into a new byte array (a Node `Buffer`) of `payload.length + 9` bytes. */
export function encodeFrame(type: number, payload: Uint8Array): Uint8Array {
  const out: Uint8Array = Buffer.allocUnsafe(payload.length + FRAME_OVERHEAD_BYTES);
  encodeFrameInto(out, 0, type, payload);
  return out;
}
