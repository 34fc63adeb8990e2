/** The wait before the first retry of `--retries`, ms. */
export const RETRY_BASE_MS = 250;

/** The longest wait between two retries, ms. */
export const RETRY_MAX_MS = 8000;

/**
 * The wait before retry `retry` (0 for the first): {@link RETRY_BASE_MS} × 2^retry, at most
 * {@link RETRY_MAX_MS}, of which a random half is dropped ("equal jitter": a wait lies in
 * [step / 2, step)). Doubling gives a restarting server room instead of a reconnect every
 * half second; the jitter keeps clients that lost the same server from coming back in step.
 * `random` returns a number in [0, 1) (Math.random by default; tests pass their own).
 */
export function retryDelayMs(retry: number, random: () => number = Math.random): number {
  const step = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** retry);
  return Math.floor(step / 2 + (step / 2) * random());
}
