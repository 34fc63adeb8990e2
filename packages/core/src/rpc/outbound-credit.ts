/** Send-side stream credit: a sender waits for the receiver's grant. */
import { Code } from "../code.js";
import { NearwireError } from "../nearwire-error.js";
import { INITIAL_CREDIT } from "./envelope.js";

/** What a sender waiting for credit is told when its call ended normally (one shared instance). */
export const CALL_FINISHED = new NearwireError(Code.OK, "call finished");

/**
 * The sending side's view of a call's credit: how many more messages the peer has agreed to
 * buffer. A sender takes one credit per message and waits when none is left.
 */
export class OutboundCredit {
  private credit = INITIAL_CREDIT;
  private waiter: (() => void) | undefined;
  private failWaiter: ((e: NearwireError) => void) | undefined;
  private error: NearwireError | undefined;

  /** Resolves when one credit is available and takes it; rejects once the call has ended. */
  take(): Promise<void> | undefined {
    if (this.error !== undefined) return Promise.reject(this.error);
    if (this.credit > 0) {
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

  grant(n: number): void {
    this.credit += n;
    const w = this.waiter;
    if (w !== undefined && this.credit > 0) {
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
