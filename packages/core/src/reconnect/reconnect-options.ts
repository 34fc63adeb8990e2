/** Options of createReconnectingConnection: connection backoff, give-up, retry policies. */
import { Code } from "../code.js";
import type { ConnectionBackoffOptions } from "./backoff.js";

/**
 * A retry policy for idempotent methods, in the shape of gRPC's service config
 * (`retryPolicy`, gRPC A6). Only methods named in {@link ReconnectOptions.retry} retry.
 */
export interface RetryPolicy {
  /** Attempts in all, the first one included (≥ 2 to retry at all). gRPC caps it at 5. */
  maxAttempts: number;
  /** Bound of the random delay before the first retry, ms. Default 100. */
  initialBackoffMs?: number;
  /** Upper bound of the delay before any retry, ms. Default 10,000. */
  maxBackoffMs?: number;
  /** The bound grows by this factor per retry. Default 2. */
  backoffMultiplier?: number;
  /** Status codes that are retried. Default `[Code.Unavailable]`. */
  retryableStatusCodes?: readonly Code[];
}

/** A {@link RetryPolicy} with its defaults filled in. */
export interface ResolvedRetryPolicy {
  readonly maxAttempts: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  readonly backoffMultiplier: number;
  readonly retryableStatusCodes: ReadonlySet<Code>;
}

/** Options of {@link createReconnectingConnection}. */
export interface ReconnectOptions {
  /** Delays between connection attempts (gRPC connection-backoff.md defaults). */
  backoff?: ConnectionBackoffOptions;
  /**
   * Consecutive failed connection attempts after which the connection gives up: waiting and
   * new calls fail UNAVAILABLE `reconnect-exhausted` and `closed` resolves with that error.
   * Default: never give up (as grpc-js).
   */
  maxConnectAttempts?: number;
  /**
   * A connection attempt that has not succeeded after this long counts as failed, ms.
   * Default 20,000 (gRPC MIN_CONNECT_TIMEOUT).
   */
  connectTimeoutMs?: number;
  /**
   * Retry policies by `package.Service` (every method of the service) or by method path
   * `/package.Service/Method` (wins over the service's entry). Name only idempotent methods:
   * a retried call may run twice on the server.
   */
  retry?: Record<string, RetryPolicy>;
}

/** Fills in a {@link RetryPolicy}'s defaults and checks its values. */
export function resolveRetryPolicy(name: string, policy: RetryPolicy): ResolvedRetryPolicy {
  const resolved = {
    maxAttempts: policy.maxAttempts,
    initialBackoffMs: policy.initialBackoffMs ?? 100,
    maxBackoffMs: policy.maxBackoffMs ?? 10_000,
    backoffMultiplier: policy.backoffMultiplier ?? 2,
    retryableStatusCodes: new Set(policy.retryableStatusCodes ?? [Code.Unavailable]),
  };
  if (!Number.isInteger(resolved.maxAttempts) || resolved.maxAttempts < 1)
    throw new RangeError(`retry policy ${name}: maxAttempts ${policy.maxAttempts} < 1`);
  if (!(resolved.initialBackoffMs >= 0) || !(resolved.maxBackoffMs >= 0))
    throw new RangeError(`retry policy ${name}: backoff values must be ≥ 0 ms`);
  if (!(resolved.backoffMultiplier >= 1))
    throw new RangeError(`retry policy ${name}: backoffMultiplier ${policy.backoffMultiplier} < 1`);
  return resolved;
}

/** The policy of one method: its path's entry, else its service's, else none. */
export function retryPolicyFor(
  policies: ReadonlyMap<string, ResolvedRetryPolicy>,
  typeName: string,
  path: string,
): ResolvedRetryPolicy | undefined {
  return policies.get(path) ?? policies.get(typeName);
}
