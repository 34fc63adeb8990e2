/**
 * The deadline and signal of one logical call across its attempts and waits: each attempt
 * gets what is left of `timeoutMs`; waiting for a connection or a retry delay ends with
 * DEADLINE_EXCEEDED at the deadline and CANCELLED when the signal aborts.
 */
import { Code } from "../code.js";
import { NearwireError } from "../nearwire-error.js";
import { timeoutError } from "../rpc/client-session.js";
import type { CallOptions } from "../transport.js";

/** The metadata key gRPC sends on a retry: how many attempts came before this one. */
export const PREVIOUS_ATTEMPTS_KEY = "grpc-previous-rpc-attempts";

/** Deadline and signal of one logical call, shared by its attempts. */
export class CallBudget {
  private readonly deadline: number | undefined;

  constructor(readonly options: CallOptions | undefined) {
    const timeoutMs = options?.timeoutMs;
    this.deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  }

  /** True when the call may wait for a connection (`waitForReady`, default false). */
  get waitForReady(): boolean {
    return this.options?.waitForReady === true;
  }

  /** ms left before the deadline, or undefined without one. */
  remainingMs(): number | undefined {
    return this.deadline === undefined ? undefined : this.deadline - Date.now();
  }

  /** The error that ends the call now (deadline passed, signal aborted), else undefined. */
  ended(): NearwireError | undefined {
    const signal = this.options?.signal;
    if (signal?.aborted === true)
      return new NearwireError(Code.Canceled, "call aborted", { cause: signal.reason });
    const left = this.remainingMs();
    if (left !== undefined && left <= 0)
      return new NearwireError(
        Code.DeadlineExceeded,
        `deadline of ${this.options?.timeoutMs} ms exceeded before the call was sent`,
      );
    return undefined;
  }

  /**
   * The options of attempt `attempt` (from 1): the rest of the deadline as `timeoutMs` and, on
   * a retry, the {@link PREVIOUS_ATTEMPTS_KEY} header (as grpc-js sends it).
   */
  attemptOptions(attempt: number): CallOptions | undefined {
    const left = this.remainingMs();
    if (attempt === 1 && (left === undefined || left === this.options?.timeoutMs))
      return this.options;
    const options: CallOptions = { ...this.options };
    if (left !== undefined) {
      if (left <= 0) throw timeoutError(left);
      options.timeoutMs = left;
    }
    if (attempt > 1)
      options.metadata = {
        ...this.options?.metadata,
        [PREVIOUS_ATTEMPTS_KEY]: String(attempt - 1),
      };
    return options;
  }

  /**
   * Waits `promise` out, bounded by the deadline and the signal: rejects with
   * DEADLINE_EXCEEDED or CANCELLED first if they come first, calling `abandon` then.
   */
  bound<T>(promise: Promise<T>, abandon: () => void = () => {}): Promise<T> {
    const ended = this.ended();
    if (ended !== undefined) {
      abandon();
      return Promise.reject(ended);
    }
    const left = this.remainingMs();
    const signal = this.options?.signal;
    if (left === undefined && signal === undefined) return promise;
    return new Promise<T>((resolve, reject) => {
      const stop = (err: NearwireError) => {
        cleanup();
        abandon();
        reject(err);
      };
      const onAbort = () => stop(this.ended() ?? new NearwireError(Code.Canceled, "call aborted"));
      const timer =
        left === undefined
          ? undefined
          : setTimeout(
              () =>
                stop(
                  new NearwireError(
                    Code.DeadlineExceeded,
                    `deadline of ${this.options?.timeoutMs} ms exceeded while waiting`,
                  ),
                ),
              left,
            );
      const cleanup = () => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      promise.then(
        (value) => {
          cleanup();
          resolve(value);
        },
        (err: unknown) => {
          cleanup();
          reject(err);
        },
      );
    });
  }

  /** Sleeps `ms`, bounded by the deadline and the signal (see {@link bound}). */
  sleep(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const slept = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    return this.bound(slept, () => clearTimeout(timer));
  }
}
