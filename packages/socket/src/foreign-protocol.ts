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

/** Bytes needed before {@link sniffForeignProtocol} can decide. */
export const SNIFF_BYTES = 9;

const SHM_RING: ForeignProtocol = { name: "the shm-ring handshake", package: "@nearwire/shm-ring" };
const GRPC: ForeignProtocol = { name: "HTTP/2 (gRPC)", package: "@nearwire/grpc-uds" };

/**
 * What the peer speaks, judged by its first {@link SNIFF_BYTES} bytes (fewer: undefined), when
 * it is not nearwire's frames:
 *
 * - the shm-ring handshake (§6.1): a big-endian u32 length ≤ 4096, then `{` — as a nearwire
 *   frame, type 0x7B, which nearwire never sends first;
 * - at a client, an HTTP/2 server's first frame, SETTINGS: a 24-bit length, type 0x04, flags,
 *   stream 0 (as a nearwire frame, type 0x00, invalid).
 *
 * Other peers (an HTTP/1 request, a gRPC client's `PRI * HTTP/2.0`) stay a bad preface at a
 * server (§4.2): they cannot read an answer anyway.
 */
export function sniffForeignProtocol(
  head: Uint8Array,
  role: "client" | "server",
): ForeignProtocol | undefined {
  if (head.length < SNIFF_BYTES) return undefined;
  const [b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0, b7 = 0, b8 = 0] = head;
  const length = ((b0 << 24) | (b1 << 16) | (b2 << 8) | b3) >>> 0;
  if (b4 === 0x7b && length <= 4096) return SHM_RING;
  if (role === "client" && b0 === 0 && b3 === 0x04 && (b5 | b6 | b7 | b8) === 0) return GRPC;
  return undefined;
}
