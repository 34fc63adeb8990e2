/** messagePool: a connection's pool of large message buffers, with the limits both engines use. */
import { BufferPool } from "../buffer-pool.js";

/**
 * Bytes of messages a pool keeps for reuse (4 MiB + 64 KiB: the two or three 1 MiB messages a
 * stream has on the way with credit by bytes, each rounded up past 1 MiB).
 */
const MESSAGE_POOL_BYTES = 4 * 1024 * 1024 + 64 * 1024;

/**
 * Past its usual limits, in a burst, a pool keeps messages up to 16 MiB, and drops back to them
 * after 2 s without running short (`BufferPool`'s `burst`): ten streams of 64 KiB messages at
 * once have 80–320 messages out, and a pool of 64 made most of the rest fresh and dropped them
 * as garbage (10 × 100 MiB file uploads over shm-ring with a 512 KiB byte window: the server's
 * RSS grew 30–39 MiB without the burst, 22–24 with it; over grpc-uds, with a pool of 32, 40–47
 * without it and 31–35 with it).
 */
const MESSAGE_POOL_BURST = { maxBytes: 16 * 1024 * 1024, idleMs: 2000 };

/**
 * A connection's pool of large message buffers: received copies a lending handler gives back,
 * encoded messages the socket has written. Keeps at most `maxCount` buffers and
 * 4 MiB + 64 KiB, and in a burst up to 16 MiB, dropped back 2 s after it last ran short.
 */
export function messagePool(maxCount: number): BufferPool {
  return new BufferPool({ maxCount, maxBytes: MESSAGE_POOL_BYTES, burst: MESSAGE_POOL_BURST });
}
