/** connectionPool: a grpc-uds connection's pool of large message buffers. */
import { type BufferPool, messagePool } from "@nearwire/core/transport-kit";

/**
 * A connection's pool of message buffers (received ones a lending handler gave back, encoded
 * ones the socket has written): at most 32 buffers, with core's byte limits and burst, enough
 * for a stream window of 64 KiB messages; ten transfers at once on one connection keep up to
 * 16 MiB in a burst.
 */
export function connectionPool(): BufferPool {
  return messagePool(32);
}
