/** Longest delay Node's `setTimeout` honours, ms (2^31 − 1); a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 0x7fffffff;

/**
 * A one-shot timer for a call's deadline that honours every u32 millisecond value of the wire
 * (up to 2^32 − 1 ms, about 49.7 days) by chaining `setTimeout`s of at most
 * `MAX_TIMER_MS` (2^31 − 1 ms).
 */
export class DeadlineTimer {
  private timer: NodeJS.Timeout | undefined;
  private readonly dueAt: number;

  /**
   * @param timeoutMs when to fire, ms from now (0 … 2^32 − 1)
   * @param onExpire runs once, unless {@link clear} came first
   * @param maxStepMs longest single `setTimeout`; tests shrink it to exercise the chaining
   */
  constructor(
    timeoutMs: number,
    private readonly onExpire: () => void,
    private readonly maxStepMs = MAX_TIMER_MS,
  ) {
    this.dueAt = Date.now() + timeoutMs;
    this.arm(timeoutMs);
  }

  /** Stops the timer; `onExpire` will not run. */
  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.fire(), Math.min(ms, this.maxStepMs));
  }

  private fire(): void {
    const left = this.dueAt - Date.now();
    if (left > 0) {
      this.arm(left);
      return;
    }
    this.timer = undefined;
    this.onExpire();
  }
}
