/** DrainGate: counts a grpc-uds server's open calls and refuses new ones once it drains. */
import { Code, NearwireError } from "@nearwire/core";

/**
 * The server's side of a graceful close, as the RPC engine does it on every other transport
 * (PROTOCOL.md §4.3): once `close()` begins, a call that arrives on a connection still open is
 * answered UNAVAILABLE with reason `server-closing`, calls in flight run on, and the HTTP/2
 * GOAWAY goes out when the last of them has ended (or the grace period has). Sending GOAWAY at
 * once instead (grpc-js's `tryShutdown`) makes a client's next call fail with a channel error
 * that says nothing of the cause.
 */
export class DrainGate {
  #draining = false;
  #open = 0;
  #idle: (() => void) | undefined;

  /** True once the server has begun to close. */
  get draining(): boolean {
    return this.#draining;
  }

  /** The answer to a call that arrives while the server drains. */
  refusal(): NearwireError {
    return new NearwireError(Code.Unavailable, "server is shutting down", {
      reason: "server-closing",
    });
  }

  /** Counts a call that started; `leave` must follow exactly once. */
  enter(): void {
    this.#open++;
  }

  /** Counts a call that ended (its status was sent, or grpc-js ended it). */
  leave(): void {
    this.#open--;
    if (this.#open === 0 && this.#idle !== undefined) {
      const idle = this.#idle;
      this.#idle = undefined;
      idle();
    }
  }

  /** Refuses new calls from now on; resolves once no call is open. */
  drain(): Promise<void> {
    this.#draining = true;
    if (this.#open === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#idle = resolve;
    });
  }
}
