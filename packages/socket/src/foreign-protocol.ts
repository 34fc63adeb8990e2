/**
 * Tells, from the first bytes of a connection, whether the peer speaks another protocol than
 * nearwire's frames (PROTOCOL.md §4.2), so that a transport mismatch is named instead of being
 * reported as a bad preface, a CRC mismatch or a timeout.
 */

/** A protocol recognised in a peer's first bytes, with the package that speaks it. */
export interface ForeignProtocol {
  /** What the peer speaks, for messages: `shm-ring`, `gRPC (HTTP/2)`, `HTTP/1`. */
  readonly name: string;
  /** The nearwire package that speaks it, if any. */
  readonly package: string | undefined;
}

/** Bytes a client needs before {@link sniffForeignProtocol} can decide (the smallest frame). */
export const SNIFF_BYTES = 9;

/** Bytes that tell an shm-ring handshake frame (a u32 length, then `{`). */
export const SHM_SNIFF_BYTES = 5;

/** Largest shm-ring handshake frame body (PROTOCOL.md §6.1). */
const SHM_MAX_HANDSHAKE_BYTES = 4096;

const SHM_RING: ForeignProtocol = { name: "the shm-ring handshake", package: "@nearwire/shm-ring" };
const GRPC: ForeignProtocol = { name: "HTTP/2 (gRPC)", package: "@nearwire/grpc-uds" };

/**
 * What the peer speaks, judged by its first bytes, when it is not nearwire's frames:
 *
 * - the shm-ring handshake (§6.1), from {@link SHM_SNIFF_BYTES} bytes: a big-endian u32 length
 *   ≤ 4096, then `{` — as a nearwire frame, type 0x7B, which nearwire never sends first;
 * - at a client, from {@link SNIFF_BYTES} bytes, an HTTP/2 server's first frame, SETTINGS: a
 *   24-bit length, type 0x04, flags, stream 0 (as a nearwire frame, type 0x00, invalid).
 *
 * Undefined when the bytes are not enough to tell, or are another peer's: an HTTP/1 request or
 * a gRPC client's `PRI * HTTP/2.0` stays a bad preface at a server (§4.2), which cannot answer
 * those in their own protocol anyway.
 */
export function sniffForeignProtocol(
  head: Uint8Array,
  role: "client" | "server",
): ForeignProtocol | undefined {
  if (head.length < SHM_SNIFF_BYTES) return undefined;
  if (head[4] === 0x7b && lengthOf(head) <= SHM_MAX_HANDSHAKE_BYTES) return SHM_RING;
  if (role === "client" && head.length >= SNIFF_BYTES) {
    const [b0, , , b3, , b5 = 0, b6 = 0, b7 = 0, b8 = 0] = head;
    if (b0 === 0 && b3 === 0x04 && (b5 | b6 | b7 | b8) === 0) return GRPC;
  }
  return undefined;
}

/**
 * How many of the peer's first bytes a side holds before it judges them (PROTOCOL.md §4.2): a
 * client {@link SNIFF_BYTES}; a server 4 (the first frame's length), and a 5th when that length
 * is above `prefaceMaxPayload` yet small enough to be an shm-ring handshake, so that a larger
 * length from any other peer (`GET ` is 1195725856) is still refused at once.
 */
export function sniffWants(
  head: Uint8Array,
  role: "client" | "server",
  prefaceMaxPayload: number,
): number {
  if (role === "client") return SNIFF_BYTES;
  if (head.length < 4) return 4;
  const length = lengthOf(head);
  return length > prefaceMaxPayload && length <= SHM_MAX_HANDSHAKE_BYTES ? SHM_SNIFF_BYTES : 4;
}

/** The big-endian u32 at the start of `head` (a frame's or a handshake frame's length). */
function lengthOf(head: Uint8Array): number {
  const [b0 = 0, b1 = 0, b2 = 0, b3 = 0] = head;
  return ((b0 << 24) | (b1 << 16) | (b2 << 8) | b3) >>> 0;
}
