/** messagePool: a connection's pool of large message buffers. */
import { BufferPool } from "@nearwire/core/transport-kit";

/**
 * A connection's pool of message buffers (received ones a lending handler gave back, encoded
 * ones the socket has written): keeps 4 MiB + 64 KiB, as core's sessions keep, enough for a
 * stream window of 64 KiB messages; in a burst up to 16 MiB, dropped back after 2 s without
 * running short, as core's sessions do too. Ten transfers at once on one connection have up to
 * ten stream windows of messages out, and a pool of 32 made most of them fresh and dropped them
 * as garbage.
 */
export function messagePool(): BufferPool {
  return new BufferPool({
    maxCount: 32,
    maxBytes: 4 * 1024 * 1024 + 64 * 1024,
    burst: { maxBytes: 16 * 1024 * 1024, idleMs: 2000 },
  });
}
