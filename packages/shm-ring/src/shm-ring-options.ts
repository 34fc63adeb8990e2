import type { PeerAuthorizationOptions } from "@nearwire/core";
import type { WaitMode } from "./shm-ring-channel.js";

/**
 * Options of {@link createShmRingChannelProvider} (and of the shm-ring transport).
 * `allowUids` / `authorize` (server) are checked once the client's HELLO is read, before its
 * segment is created: a refused peer gets a PERMISSION_DENIED handshake error and is closed.
 */
export interface ShmRingOptions extends PeerAuthorizationOptions {
  /**
   * Control socket address: a socket file path (at most 107 bytes), `unix:PATH`, or
   * `unix-abstract:NAME` for a Linux abstract socket (no file).
   */
  address: string;
  /**
   * Capacity of each ring (one per direction), bytes: a power of two in [4 KiB, 1 GiB].
   * Default 4 MiB, so a segment is 8 MiB + 4 KiB. The server's value decides; a client's is
   * ignored. The ring size does not cap the message size: a frame larger than one record
   * (`ringBytes / 2 - 16`) travels as several (PROTOCOL.md §6.3).
   */
  ringBytes?: number;
  /**
   * Largest frame payload this side sends and accepts, bytes; the connection uses the smaller
   * of both sides' values (never less than one record). Default 4 MiB + 64 KiB; the shm-ring
   * transport sets it to `maxMessageBytes` + 64 KiB. A larger frame is refused by `send` with
   * RESOURCE_EXHAUSTED reason `frame-too-large`.
   */
  maxFrameBytes?: number;
  /**
   * Announce in the handshake that this side takes BATCH frames (several RPC messages in one
   * frame; the `features` key, PROTOCOL.md §6.1 and §5.2): for the RPC engine, which
   * `createShmRingTransport` runs on top (its `batches` option, default true there). Default
   * false: a channel used directly never sees a BATCH.
   */
  batches?: boolean;
  /**
   * How this side waits for frames: `spin` polls the ring all the time (one busy core per
   * side, lowest latency), `park` sleeps until a doorbell byte on the control socket, and
   * `adaptive` spins for `spinUs` after the last activity, then parks. Default `adaptive`.
   */
  wait?: WaitMode;
  /** Spin window of `adaptive` mode, µs. Default 50. */
  spinUs?: number;
  /**
   * Where segments are created: unset (default) uses `memfd_create`, which never has a name
   * in any file system; a directory (such as `/dev/shm`) creates a 0600 file there that is
   * unlinked before anyone else can see it is needed. Server side only.
   */
  shmDir?: string;
  /**
   * Handshake time limit, ms. Default 2000 + ringBytes / 256 KiB (2 s plus 4 ms per MiB of
   * ring: 2,016 ms for 4 MiB rings). A local handshake takes milliseconds plus committing the
   * segment (measured about 1.7 s per GiB of segment, both sides, on a loaded 2-core host);
   * the limit is also how long a peer that stalls holds a pending-handshake slot, so it is
   * short (it was 5 s).
   */
  handshakeTimeoutMs?: number;
  /**
   * Server only: handshakes in progress at once on one listener, at most. Default 64. When a
   * connection arrives with all slots taken, the oldest pending handshake is failed with
   * RESOURCE_EXHAUSTED (an error frame, then close) to make room: a flood of silent or stalled
   * connections cannot lock out a client that completes its handshake promptly. Until its
   * `ready`, a pending handshake holds a socket, a sealed memfd and one committed page.
   */
  maxPendingHandshakes?: number;
  /**
   * Server only: connections open at once on one listener (pending handshakes included), at
   * most. One more gets a RESOURCE_EXHAUSTED `too-many-connections` handshake error and is
   * closed; the connections already open are not touched. Default: no limit.
   */
  maxConnections?: number;
  /**
   * Client only: map a segment that is not sealed against shrinking and growing (what a
   * server with `shmDir` offers). Such a server can truncate the file under this process's
   * mapping, which then dies of SIGBUS on its next access. Default false: the handshake fails
   * FAILED_PRECONDITION `unsealed-segment` before the segment is mapped.
   */
  acceptUnsealedSegments?: boolean;
}
