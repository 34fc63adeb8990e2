/** Receive-side stream credit: how many messages a receiver grants ahead (PROTOCOL.md 5.4). */
import { CREDIT_GRANT_BYTES } from "../frame-type.js";
import { INITIAL_CREDIT } from "./envelope.js";
import { SizeQueue } from "./size-queue.js";

/**
 * Most messages a receiver grants ahead on one call over a channel that does not say how much it
 * holds on the way in (a socket: the kernel's buffers are not known here) (PROTOCOL.md §5.4).
 */
export const MAX_WINDOW_MESSAGES = 4096;

/**
 * Most messages a receiver grants ahead on one call over a channel that states its inbound
 * capacity (`Channel.inboundCapacityBytes`: a shared-memory or worker ring). A ring holds the
 * whole window, so a larger window costs no kernel or user-space queueing there; over a socket a
 * window past its buffers makes the sender wait on drain instead (`stream:uds/raw/64B` in the
 * bench is slower at 16,384 than at 4,096).
 */
export const MAX_RING_WINDOW_MESSAGES = 16384;

/** The receive window aims at this many bytes of messages granted ahead (1 MiB). */
export const WINDOW_BYTES = 1024 * 1024;

/**
 * Credit goes back each time this fraction (1/n) of the window has been consumed: a half, the
 * cadence PROTOCOL.md §5.4 gives for the reference receiver (the interop peer checks it). A
 * quarter helped the ring only while its window was small; with a ring-sized window the ring
 * gains as much at half, so the cadence stays.
 */
export const GRANT_PARTS = 2;

/**
 * How far a receive window may grow on one channel (bytes of messages, and messages), and the
 * bytes consumed after which credit goes back whatever the window.
 */
export interface WindowLimits {
  readonly bytes: number;
  readonly messages: number;
  readonly grantBytes: number;
}

/** The limits over a channel of unknown inbound capacity. */
export const DEFAULT_WINDOW: WindowLimits = {
  bytes: WINDOW_BYTES,
  messages: MAX_WINDOW_MESSAGES,
  grantBytes: CREDIT_GRANT_BYTES,
};

/**
 * The window limits of a channel whose inbound capacity is `capacityBytes` (undefined: not
 * known) and that announced the byte window `creditWindowBytes` (undefined: none):
 * {@link DEFAULT_WINDOW}, or over a ring, up to half the ring of messages (at most
 * {@link WINDOW_BYTES}) and {@link MAX_RING_WINDOW_MESSAGES}. An announced window W bounds the
 * bytes to W and grants once W ÷ 2 was consumed (PROTOCOL.md §5.4).
 */
export function windowLimits(
  capacityBytes: number | undefined,
  creditWindowBytes?: number,
): WindowLimits {
  const ring = capacityBytes !== undefined && capacityBytes > 0;
  const limits: WindowLimits = ring
    ? {
        bytes: Math.min(WINDOW_BYTES, Math.floor(capacityBytes / 2)),
        messages: MAX_RING_WINDOW_MESSAGES,
        grantBytes: CREDIT_GRANT_BYTES,
      }
    : DEFAULT_WINDOW;
  if (creditWindowBytes === undefined) return limits;
  return {
    bytes: Math.min(limits.bytes, creditWindowBytes),
    messages: limits.messages,
    grantBytes: Math.min(CREDIT_GRANT_BYTES, Math.floor(creditWindowBytes / 2)),
  };
}

/**
 * The receiving side of a call's flow control (PROTOCOL.md §5.4). The window starts at the
 * protocol's {@link INITIAL_CREDIT} (32 messages) and grows, by granting more CREDIT than was
 * consumed, to about `limits.bytes` of messages of the sizes seen so far, between 32 and
 * `limits.messages`. With the default limits 64-byte messages get a 4,096-message window
 * (256 KiB), 1 KiB messages 1,024, 64 KiB messages stay at 32; over a 4 MiB ring 64-byte
 * messages get 16,384 (1 MiB ÷ 64 B; the bench's raw Chunk of 64 data bytes, 72 B encoded,
 * gets 1 MiB ÷ 72 B = 14,563). Credit is returned each time half the window has been
 * consumed ({@link GRANT_PARTS}). The window must cover the peer's wake-up: a sender that
 * ran out of credit sleeps until the CREDIT frame wakes it, and a window of small messages that
 * is consumed faster than that leaves both sides idle half the time.
 */
export class InboundCredit {
  constructor(private readonly limits: WindowLimits = DEFAULT_WINDOW) {}

  /** Messages currently granted ahead (the window). */
  private window = INITIAL_CREDIT;
  /** Granted and not yet received; below −INITIAL_CREDIT the peer broke the protocol. */
  private outstanding = INITIAL_CREDIT;
  private consumed = 0;
  /** Bytes of the messages consumed since the last grant. */
  private consumedBytes = 0;
  private received = 0;
  private receivedBytes = 0;
  /** Sizes of the messages received and not yet consumed, oldest first. */
  private readonly sizes = new SizeQueue();

  /** A message of `bytes` arrived. False when the peer sent more than 32 past its credit. */
  onReceived(bytes: number): boolean {
    this.received++;
    this.receivedBytes += bytes;
    this.sizes.push(bytes);
    return --this.outstanding >= -INITIAL_CREDIT;
  }

  /** False when `count` more messages would put the peer more than 32 past its credit. */
  allows(count: number): boolean {
    return this.outstanding - count >= -INITIAL_CREDIT;
  }

  /**
   * The application took one message: the CREDIT to send now, or 0. Credit goes back once half
   * the window was consumed, or once the messages consumed since the last grant total
   * `limits.grantBytes` ({@link CREDIT_GRANT_BYTES}, the promise of `FEATURE_CREDIT_BYTES`: a
   * sender that holds its unacknowledged bytes to `SEND_WINDOW_BYTES` is never left waiting;
   * half the byte window this side announced, if it did). Without an announced window only
   * messages above 64 KiB reach the byte rule before half the window.
   */
  onConsumed(): number {
    this.consumedBytes += this.sizes.shift();
    if (++this.consumed < this.window / GRANT_PARTS && this.consumedBytes < this.limits.grantBytes)
      return 0;
    let grant = this.consumed;
    this.consumed = 0;
    this.consumedBytes = 0;
    const average = this.receivedBytes / Math.max(1, this.received);
    const target = Math.max(
      INITIAL_CREDIT,
      Math.min(this.limits.messages, Math.floor(this.limits.bytes / Math.max(1, average))),
    );
    if (target > this.window) {
      grant += target - this.window;
      this.window = target;
    }
    this.outstanding += grant;
    return grant;
  }
}
