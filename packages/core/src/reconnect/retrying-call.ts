/**
 * One logical call of a reconnecting client: its attempts, each on the connection current
 * when it starts. An attempt that fails with a retryable code is retried while the call is not
 * committed — no response message has reached the caller (gRPC A6) — and its request can be
 * sent again; the caller sees exactly one outcome, the last attempt's.
 */
import { NearwireError } from "../nearwire-error.js";
import type { CallOptions, ClientConnection } from "../transport.js";
import { retryDelayMs } from "./backoff.js";
import { CallBudget } from "./call-budget.js";
import type { ConnectionKeeper } from "./connection-keeper.js";
import type { ResolvedRetryPolicy } from "./reconnect-options.js";

/** What one call needs: where connections come from, and its retry policy if it retries. */
export interface CallRoute {
  readonly keeper: ConnectionKeeper;
  /** undefined: one attempt only. */
  readonly policy: ResolvedRetryPolicy | undefined;
}

/** Starts one attempt on `conn` with the attempt's options. */
export type StartAttempt<T> = (conn: ClientConnection, options: CallOptions | undefined) => T;

/** Runs a call answered with one message (unary, client-streaming), retrying per the route. */
export async function retryingCall<T>(
  route: CallRoute,
  options: CallOptions | undefined,
  replayable: boolean,
  start: StartAttempt<Promise<T>>,
): Promise<T> {
  const budget = new CallBudget(options);
  const maxAttempts = attemptsAllowed(route, replayable);
  for (let attempt = 1; ; attempt++) {
    try {
      const conn = await route.keeper.acquire(budget);
      return await start(conn, budget.attemptOptions(attempt));
    } catch (err) {
      await beforeRetry(route, budget, err, attempt, maxAttempts);
    }
  }
}

/**
 * Runs a call answered with a stream (server-streaming, bidi), retrying per the route until
 * the first response message has been handed to the caller.
 */
export async function* retryingStream<T>(
  route: CallRoute,
  options: CallOptions | undefined,
  replayable: boolean,
  start: StartAttempt<AsyncIterable<T>>,
): AsyncGenerator<T, void, undefined> {
  const budget = new CallBudget(options);
  const maxAttempts = attemptsAllowed(route, replayable);
  for (let attempt = 1; ; attempt++) {
    let committed = false;
    try {
      const conn = await route.keeper.acquire(budget);
      for await (const message of start(conn, budget.attemptOptions(attempt))) {
        committed = true;
        yield message;
      }
      return;
    } catch (err) {
      if (committed) throw err;
      await beforeRetry(route, budget, err, attempt, maxAttempts);
    }
  }
}

function attemptsAllowed(route: CallRoute, replayable: boolean): number {
  return route.policy === undefined || !replayable ? 1 : route.policy.maxAttempts;
}

/** Rethrows `err` unless the call may be retried; else waits the retry delay. */
async function beforeRetry(
  route: CallRoute,
  budget: CallBudget,
  err: unknown,
  attempt: number,
  maxAttempts: number,
): Promise<void> {
  const policy = route.policy;
  if (
    policy === undefined ||
    attempt >= maxAttempts ||
    !(err instanceof NearwireError) ||
    !policy.retryableStatusCodes.has(err.code) ||
    budget.ended() !== undefined
  )
    throw err;
  await budget.sleep(retryDelayMs(policy, attempt));
}
