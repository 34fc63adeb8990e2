/**
 * The two backoff schedules of gRPC: connection backoff (exponential with ± jitter, gRPC
 * connection-backoff.md) and retry backoff (exponential with a random delay below the bound,
 * gRPC A6 client retries).
 */

/** Connection backoff settings, in the names of gRPC connection-backoff.md. */
export interface ConnectionBackoffOptions {
  /** Delay after the first failed attempt, ms. Default 1000 (gRPC INITIAL_BACKOFF). */
  initialMs?: number;
  /** Each failed attempt multiplies the delay by this. Default 1.6 (gRPC MULTIPLIER). */
  multiplier?: number;
  /** The delay is spread uniformly by ± this fraction. Default 0.2 (gRPC JITTER). */
  jitter?: number;
  /** Upper bound of the delay before jitter, ms. Default 120,000 (gRPC MAX_BACKOFF). */
  maxMs?: number;
}

/**
 * Delays between connection attempts: `initialMs`, then × `multiplier` up to `maxMs`, each
 * spread by ± `jitter` so that clients of one restarted server do not reconnect in step.
 * `reset()` after a successful connection starts the schedule over.
 */
export class ConnectionBackoff {
  /** The first delay of the schedule, ms. */
  readonly initialMs: number;
  private readonly multiplier: number;
  private readonly jitter: number;
  private readonly maxMs: number;
  private nextBaseMs: number;

  constructor(
    options: ConnectionBackoffOptions = {},
    private readonly random = Math.random,
  ) {
    this.initialMs = options.initialMs ?? 1000;
    this.multiplier = options.multiplier ?? 1.6;
    this.jitter = options.jitter ?? 0.2;
    this.maxMs = options.maxMs ?? 120_000;
    this.nextBaseMs = this.initialMs;
  }

  /** The delay before the next attempt, ms; advances the schedule. */
  next(): number {
    const base = this.nextBaseMs;
    this.nextBaseMs = Math.min(base * this.multiplier, this.maxMs);
    return Math.max(0, base + base * this.jitter * (this.random() * 2 - 1));
  }

  /** Starts the schedule over at `initialMs`. */
  reset(): void {
    this.nextBaseMs = this.initialMs;
  }
}

/**
 * The delay before retry attempt `attempt + 1` after `attempt` failed attempts (gRPC A6):
 * uniformly random in [0, min(initialBackoffMs × multiplier^(attempt − 1), maxBackoffMs)).
 */
export function retryDelayMs(
  policy: { initialBackoffMs: number; maxBackoffMs: number; backoffMultiplier: number },
  attempt: number,
  random = Math.random,
): number {
  const bound = Math.min(
    policy.initialBackoffMs * policy.backoffMultiplier ** (attempt - 1),
    policy.maxBackoffMs,
  );
  return random() * bound;
}
