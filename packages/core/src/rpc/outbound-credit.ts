/** Send-side stream credit: a sender waits for the receiver's grant. */
import { Code } from "../code.js";
import { NearwireError } from "../nearwire-error.js";
import { INITIAL_CREDIT } from "./envelope.js";
import { SizeQueue } from "./size-queue.js";

/** What a sender waiting for credit is told when its call ended normally (one shared instance). */
export const CALL_FINISHED = new NearwireError(Code.OK, "call finished");

/**
 * The sending side's view of a call's credit: how many more messages the peer has agreed to
 * buffer. A sender takes one credit per message and waits when none is left.
 *
 * With `windowBytes` (the peer announced `FEATURE_CREDIT_BYTES`, PROTOCOL.md §5.4) it also
 * waits while the messages it sent and got no credit back for total `windowBytes` or more: each
 * credit the peer returns acknowledges the oldest message not yet acknowledged.
 */
export class OutboundCredit {
  private credit = INITIAL_CREDIT;
  private waiter: (() => void) | undefined;
  private failWaiter: ((e: NearwireError) => void) | undefined;
  private error: NearwireError | undefined;
  /** Sizes of the messages sent and not yet acknowledged (with `windowBytes`). */
  private readonly sizes: SizeQueue | undefined;
  private unackedBytes = 0;
  /** Credit returned beyond the messages sent (a grown window): acknowledges the next ones. */
  private ackedAhead = 0;

  constructor(private readonly windowBytes = Number.POSITIVE_INFINITY) {
    this.sizes = windowBytes === Number.POSITIVE_INFINITY ? undefined : new SizeQueue();
  }

  private ready(): boolean {
    return this.credit > 0 && this.unackedBytes < this.windowBytes;
  }

  /** Resolves when one credit is available and takes it; rejects once the call has ended. */
  take(): Promise<void> | undefined {
    if (this.error !== undefined) return Promise.reject(this.error);
    if (this.ready()) {
      this.credit--;
      return undefined;
    }
    return new Promise<void>((resolve, reject) => {
      this.waiter = () => {
        this.credit--;
        resolve();
      };
      this.failWaiter = reject;
    });
  }

  /** A message of `bytes` went out (after `take`): counted until credit acknowledges it. */
  sent(bytes: number): void {
    const sizes = this.sizes;
    if (sizes === undefined) return;
    if (this.ackedAhead > 0) this.ackedAhead--;
    else {
      sizes.push(bytes);
      this.unackedBytes += bytes;
    }
  }

  grant(n: number): void {
    this.credit += n;
    const sizes = this.sizes;
    if (sizes !== undefined) {
      let acks = n;
      while (acks > 0 && sizes.length > 0) {
        this.unackedBytes -= sizes.shift();
        acks--;
      }
      this.ackedAhead += acks;
    }
    const w = this.waiter;
    if (w !== undefined && this.ready()) {
      this.waiter = undefined;
      this.failWaiter = undefined;
      w();
    }
  }

  fail(error: NearwireError): void {
    if (this.error !== undefined) return;
    this.error = error;
    const f = this.failWaiter;
    this.waiter = undefined;
    this.failWaiter = undefined;
    f?.(error);
  }
}
