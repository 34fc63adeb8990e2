/**
 * Frame v1 layout (see PROTOCOL.md §1 at the repository root):
 *
 * ```
 * offset  size  field
 * 0       4     N: payload length, unsigned, big-endian (excludes header and CRC)
 * 4       1     type
 * 5       N     payload
 * 5+N     4     CRC-32C of bytes [4, 5+N) (type and payload), big-endian
 * ```
 */

/** Bytes before the payload: u32 BE length + u8 type. */
export const FRAME_HEADER_BYTES = 5;

/** Bytes after the payload: u32 BE CRC-32C of type and payload. */
export const FRAME_TRAILER_BYTES = 4;

/** Header plus trailer: a frame occupies `FRAME_OVERHEAD_BYTES + N` bytes on the wire. */
export const FRAME_OVERHEAD_BYTES = 9;

/**
 * Default largest payload a receiver accepts, in bytes (4 MiB). Each side announces its own
 * limit in HELLO; a sender never sends more than the peer announced.
 */
export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** Largest length the 32-bit length field can carry (4 GiB − 1), in bytes. */
export const MAX_FRAME_LENGTH_FIELD = 0xffff_ffff;
