/** Receive-side stream credit: how many messages a receiver grants ahead (PROTOCOL.md 5.4). */
import { INITIAL_CREDIT } from "./envelope.js";

/** Most messages a receiver grants ahead on one call (PROTOCOL.md §5.4). */
export const MAX_WINDOW_MESSAGES = 4096;

/** The receive window aims at this many bytes of messages granted ahead (1 MiB). */
export const WINDOW_BYTES = 1024 * 1024;

/**
 * The receiving side of a call's flow control (PROTOCOL.md §5.4). The window starts at the
 * protocol's {@link INITIAL_CREDIT} (32 messages) and grows, by granting more CREDIT than was
 * consumed, to about {@link WINDOW_BYTES} of messages of the sizes seen so far, between 32 and
 * {@link MAX_WINDOW_MESSAGES}: 64-byte messages get a 4,096-message window (256 KiB), 1 KiB
 * messages 1,024, 64 KiB messages stay at 32. Credit is returned each time half the window has
 * been consumed. The window must cover the peer's wake-up: a sender that ran out of credit
 * sleeps until the CREDIT frame wakes it (tens of µs on a VM), and a 256-message window of
 * 64-byte messages (the cap before) was consumed faster than that, so both sides idled
 * half the time (stream:uds/bytes/64B 506 k msgs/s at 256, 675 k at 4,096, 670 k at 16,384).
 */
export class InboundCredit {
  /** Messages currently granted ahead (the window). */
  private window = INITIAL_CREDIT;
  /** Granted and not yet received; below −INITIAL_CREDIT the peer broke the protocol. */
  private outstanding = INITIAL_CREDIT;
  private consumed = 0;
  private received = 0;
  private receivedBytes = 0;

  /** A message of `bytes` arrived. False when the peer sent more than 32 past its credit. */
  onReceived(bytes: number): boolean {
    this.received++;
    this.receivedBytes += bytes;
    return --this.outstanding >= -INITIAL_CREDIT;
  }

  /** The application took one message: the CREDIT to send now, or 0. */
  onConsumed(): number {
    if (++this.consumed < this.window / 2) return 0;
    let grant = this.consumed;
    this.consumed = 0;
    const average = this.receivedBytes / Math.max(1, this.received);
    const target = Math.max(
      INITIAL_CREDIT,
      Math.min(MAX_WINDOW_MESSAGES, Math.floor(WINDOW_BYTES / Math.max(1, average))),
    );
    if (target > this.window) {
      grant += target - this.window;
      this.window = target;
    }
    this.outstanding += grant;
    return grant;
  }
}
