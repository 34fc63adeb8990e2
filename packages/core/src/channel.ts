/** The Channel layer's interfaces: Channel, ChannelHandler, ChannelListener, ChannelProvider. */
import type { NearwireError } from "./nearwire-error.js";
import type { Peer } from "./peer.js";

/**
 * Receives what a {@link Channel} delivers. Both callbacks run on the event loop.
 */
export interface ChannelHandler {
  /**
   * One frame arrived. `payload` is valid until this callback returns when the channel's
   * `transientPayloads` (read during this callback) is true — a shared-memory ring slot, a
   * socket's reused read buffer; copy it to keep it longer.
   */
  onFrame(type: number, payload: Uint8Array): void;
  /**
   * The channel closed: `error` is undefined after this side's own clean `close()` (or a peer's
   * GOAWAY with code OK), UNAVAILABLE (reason `peer-closed`) when the peer closed or died, and
   * the error (INTERNAL, DATA_LOSS, RESOURCE_EXHAUSTED, …) for a corrupt or violating stream.
   * Called exactly once.
   */
  onClose(error: NearwireError | undefined): void;
}

/**
 * An ordered, reliable, bidirectional stream of frames `(type: u8, payload: bytes)` with
 * backpressure, a clean close, and a close reason when the peer dies. The connection preface
 * (version check) has completed before a Channel is handed out.
 *
 * Frame types 0x01–0x0F belong to the channel itself and are never delivered; 0x10–0x7F are the
 * RPC engine's; 0x80–0xFF are free for applications that use the channel layer directly.
 */
export interface Channel {
  /** Largest payload `send` accepts and the peer will accept, in bytes. */
  readonly maxPayloadBytes: number;
  /**
   * Optional: takes back a payload this channel delivered (not transient) once nothing refers
   * to it any more, so that a later frame can reuse its memory. The RPC engine calls it for
   * the request messages of a handler marked with `lendMessages`, at most once per payload.
   */
  reclaim?(payload: Uint8Array): void;
  /**
   * True when the payload being delivered is only valid during `onFrame` (see
   * {@link ChannelHandler}). Read it inside `onFrame`: it may change from frame to frame (a
   * socket channel delivers frames that spanned reads in buffers of their own).
   */
  readonly transientPayloads: boolean;
  /**
   * Optional: how many bytes of frames this channel holds on their way to this side, so that the
   * peer can send that much before it is pushed back (a ring's data capacity). The RPC engine
   * lets a stream's receive window grow to half of it (at most 1 MiB of messages, 16,384
   * messages); without it (a socket, whose kernel buffers are not known) the window stops at
   * 1 MiB and 4,096 messages.
   */
  readonly inboundCapacityBytes?: number;
  /**
   * Optional: true when this side announced in its preface that it takes BATCH frames (0x16,
   * several messages of a call in one frame: PROTOCOL.md §4.1, §5.2). The RPC engine then reads
   * them; without it a BATCH is a frame type it never accepts. Absent means false.
   */
  readonly acceptsBatches?: boolean;
  /**
   * Optional: true when the peer announced that it takes BATCH frames; the RPC engine then
   * sends a stream's messages in them. Absent means false.
   */
  readonly peerAcceptsBatches?: boolean;
  /**
   * Optional: true when the peer announced that it returns stream credit by bytes too
   * (`FEATURE_CREDIT_BYTES`, PROTOCOL.md §4.1, §5.4); the RPC engine then holds each stream it
   * sends to 2 MiB of messages unacknowledged instead of the 32 messages of the initial credit
   * (32 MiB with 1 MiB messages). Absent means false.
   */
  readonly peerCreditsBytes?: boolean;
  /**
   * Optional: the byte window the peer announced (`FEATURE_CREDIT_WINDOW`, PROTOCOL.md §4.1,
   * §5.4), as `creditWindowBytes` reads it; with {@link peerCreditsBytes} the RPC engine holds
   * each stream it sends to this many bytes unacknowledged instead of 2 MiB. Absent: 2 MiB.
   */
  readonly peerCreditWindowBytes?: number | undefined;
  /**
   * Optional: the byte window this side announced in its preface (as `creditWindowBytes`
   * reads it); the RPC engine then returns credit on every call once half of it was consumed,
   * instead of 1 MiB. Absent: this side announced none.
   */
  readonly creditWindowBytes?: number | undefined;
  /** True once the channel is closed or closing; `send` then throws UNAVAILABLE. */
  readonly closed: boolean;
  /** Human-readable description of the peer, for logs (`uds:/run/x.sock`, `tcp:127.0.0.1:9`). */
  readonly peer: string;
  /**
   * Optional, server side: the peer as read on accept (`SO_PEERCRED` of a Unix socket). The RPC
   * engine hands it to handlers as `ctx.peer`; without it they see `{ address: peer }`.
   */
  readonly peerCredentials?: Peer | undefined;
  /** Starts delivery; frames that arrived earlier are delivered right after. Call once. */
  start(handler: ChannelHandler): void;
  /**
   * Queues one frame. Returns false when the send buffer is above its high-water mark: the
   * caller should await `drained()` before sending more. Throws RESOURCE_EXHAUSTED (reason
   * `frame-too-large`) when `payload` exceeds `maxPayloadBytes`, UNAVAILABLE when closed.
   */
  send(type: number, payload: Uint8Array): boolean;
  /**
   * Optional zero-copy send, offered by transports that own their send buffer (the
   * shared-memory ring): reserves the contiguous room available right now and calls
   * `fill(dest, offset, limit)`, which writes at most `limit` payload bytes at
   * `dest[offset…]` and returns how many it wrote, or -1 when the payload does not fit. The
   * frame is published only when `fill` succeeds; returns false when nothing was sent (no room,
   * -1, earlier frames still queued), and the caller then uses `send`.
   */
  sendWith?(
    type: number,
    fill: (dest: Uint8Array, offset: number, limit: number) => number,
  ): boolean;
  /**
   * Optional, with `sendWith`: true while the send buffer is at or above its high-water mark —
   * what `send` reports by returning false, for frames sent through `sendWith` (whose true means
   * "sent"). Absent means never above it after a successful `sendWith`.
   */
  readonly backpressured?: boolean;
  /** Resolves when the send buffer is below its high-water mark (at once if it already is). */
  drained(): Promise<void>;
  /** Stops delivering frames (the kernel or ring then pushes back on the peer). */
  pause(): void;
  /** Resumes delivery after `pause`. */
  resume(): void;
  /**
   * Closes the channel. Without `error`: flushes queued frames, then closes cleanly. With
   * `error`: tells the peer why where the channel can (GOAWAY), then closes at once.
   */
  close(error?: NearwireError): Promise<void>;
}

/** A bound address accepting channels. */
export interface ChannelListener {
  /** The bound address, in the form the transport's `connect` accepts. */
  readonly address: string;
  /**
   * Stops accepting and unbinds (a socket file is removed). Channels already accepted stay
   * open: their owner closes them (the RPC server does so in its graceful shutdown).
   */
  close(): Promise<void>;
}

/** What a channel transport (uds, shm-ring) offers: the part the RPC engine needs. */
export interface ChannelProvider {
  /** Transport name for reports and errors (`uds`, `tcp`, `shm-ring`). */
  readonly name: string;
  /** Binds and calls `onChannel` for each accepted channel, after its preface. */
  listen(onChannel: (channel: Channel) => void): Promise<ChannelListener>;
  /** Connects; resolves after the preface. Rejects with UNAVAILABLE when nobody listens. */
  connect(): Promise<Channel>;
}
