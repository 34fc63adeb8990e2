import type { PeerAuthorizationOptions } from "@nearwire/core";
import type { RingOptions } from "@nearwire/ring";

/** How a receiving side waits for frames (defined with the ring options, @nearwire/ring). */
export type { WaitMode } from "@nearwire/ring";

/**
 * Options of {@link createShmRingChannelProvider} (and of the shm-ring transport): the ring
 * options of `@nearwire/ring` ({@link RingOptions}: `ringBytes`, `maxFrameBytes`, `batches`,
 * `wait`, `spinUs`; the server's `ringBytes` decides) and the control socket's.
 * `allowUids` / `authorize` (server) are checked once the client's HELLO is read, before its
 * segment is created: a refused peer gets a PERMISSION_DENIED handshake error and is closed.
 */
export interface ShmRingOptions extends PeerAuthorizationOptions, RingOptions {
  /**
   * Control socket address: a socket file path (at most 107 bytes), `unix:PATH`, or
   * `unix-abstract:NAME` for a Linux abstract socket (no file).
   */
  address: string;
  /**
   * Where segments are created: unset (default) uses `memfd_create`, which never has a name
   * in any file system; a directory (such as `/dev/shm`) creates a 0600 file there that is
   * unlinked before anyone else can see it is needed. Server side only.
   */
  shmDir?: string;
  /**
   * Handshake time limit, ms. Default 2000 + ringBytes / 256 KiB (2 s plus 4 ms per MiB of
   * ring: 2,016 ms for 4 MiB rings). A local handshake takes milliseconds plus committing the
   * segment, which grows with its size, hence the per-MiB term; the limit is also how long a
   * peer that stalls holds a pending-handshake slot, so it is short.
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
  /**
   * Bytes of messages a peer may send on one call before this side's credit for them comes
   * back (the byte window, PROTOCOL.md §5.4, §6.1), 64 KiB … 2 MiB; announced in the handshake.
   * Left out, a peer holds 2 MiB per stream. For a side that receives many large streams at
   * once: it bounds the messages it must copy out of the ring while its reader is behind.
   * A server announces it only to clients that send `features` (nearwire's RPC clients).
   */
  creditWindowBytes?: number;
}
