/** messagePool: a connection's pool of large message buffers. */
import { BufferPool } from "@nearwire/core/transport-kit";

/**
 * A connection's pool of message buffers (received ones a lending handler gave back, encoded
 * ones the socket has written): keeps 4 MiB + 64 KiB, as core's sessions keep, enough for a
 * stream window of 64 KiB messages.
 */
export function messagePool(): BufferPool {
  return new BufferPool({ maxCount: 32, maxBytes: 4 * 1024 * 1024 + 64 * 1024 });
}
