/**
 * ConnectionKeeper: the state machine that holds one underlying connection of a reconnecting
 * client and replaces it when it is lost, with the states of gRPC connectivity-semantics.md:
 *
 * ```
 *   idle ──first call──▶ connecting ──ok──▶ ready
 *                          ▲     │            │ lost: to connecting at once, or to
 *           backoff delay  │     │ fail       │ transient-failure when it was ready for
 *                          │     ▼            │ less than backoff.initialMs
 *                   transient-failure ◀───────┘
 *                          │ maxConnectAttempts failures in a row (or close() from any state)
 *                          ▼
 *                      shutdown
 * ```
 *
 * A call without `waitForReady` waits out `idle` and `connecting` and fails UNAVAILABLE at
 * once in `transient-failure`; with it, it waits until `ready` (gRPC wait-for-ready.md).
 */
import { Code } from "../code.js";
import { messageOf, NearwireError } from "../nearwire-error.js";
import { closedByCaller } from "../rpc/client-session.js";
import type { ClientConnection, Transport } from "../transport.js";
import { ConnectionBackoff } from "./backoff.js";
import type { CallBudget } from "./call-budget.js";
import type { ReconnectOptions } from "./reconnect-options.js";

/** Connectivity states, named as gRPC names them (lower-case). */
export type ConnectivityState = "idle" | "connecting" | "ready" | "transient-failure" | "shutdown";

interface Waiter {
  readonly waitForReady: boolean;
  resolve(conn: ClientConnection): void;
  reject(err: NearwireError): void;
}

/** Holds the current connection of a reconnecting client; see the file comment. */
export class ConnectionKeeper {
  private stateNow: ConnectivityState = "idle";
  private current: ClientConnection | undefined;
  private readonly waiters = new Set<Waiter>();
  private readonly backoff: ConnectionBackoff;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private lastError: NearwireError | undefined;
  /** When the current connection became ready (`Date.now()` scale). */
  private readyAt = 0;
  /** The connection attempt in progress, settled once its outcome has been handled. */
  private pending: Promise<void> = Promise.resolve();
  private finalError: NearwireError | undefined;
  private resolveClosed: (err: Error | undefined) => void = () => {};
  /** Resolves once shut down: undefined after `close()`, the error after giving up. */
  readonly closed: Promise<Error | undefined>;

  constructor(
    private readonly transport: Transport,
    private readonly options: ReconnectOptions,
  ) {
    this.backoff = new ConnectionBackoff(options.backoff);
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  /** The connectivity state now. */
  get state(): ConnectivityState {
    return this.stateNow;
  }

  /**
   * The connection a call should use now, waiting for one as `budget.waitForReady` allows
   * and for no longer than the call's deadline and signal allow.
   */
  acquire(budget: CallBudget): Promise<ClientConnection> {
    if (this.stateNow === "ready" && this.current !== undefined)
      return Promise.resolve(this.current);
    if (this.finalError !== undefined) return Promise.reject(this.finalError);
    if (this.stateNow === "transient-failure" && !budget.waitForReady)
      return Promise.reject(this.unavailable());
    let waiter: Waiter | undefined;
    const waiting = new Promise<ClientConnection>((resolve, reject) => {
      waiter = { waitForReady: budget.waitForReady, resolve, reject };
      this.waiters.add(waiter);
    });
    if (this.stateNow === "idle") this.connect();
    return budget.bound(waiting, () => {
      if (waiter !== undefined) this.waiters.delete(waiter);
    });
  }

  /**
   * Shuts down: no more attempts; waiting calls fail CANCELLED `closed`, as a call on any
   * connection its own side closed does (not UNAVAILABLE: nothing may retry it).
   */
  async close(): Promise<void> {
    if (this.stateNow !== "shutdown") this.shutdown(closedByCaller(), undefined);
    const conn = this.current;
    this.current = undefined;
    // An attempt still pending closes what it brings (see `connected`) before close resolves.
    await Promise.all([conn?.close(), this.pending]);
  }

  private connect(): void {
    this.stateNow = "connecting";
    let attempt: Promise<ClientConnection>;
    try {
      attempt = this.transport.connect();
    } catch (err) {
      attempt = Promise.reject(err);
    }
    const timeoutMs = this.options.connectTimeoutMs ?? 20_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new NearwireError(
              Code.Unavailable,
              `connect did not complete within connectTimeoutMs ${timeoutMs}`,
            ),
          ),
        timeoutMs,
      );
    });
    this.pending = Promise.race([attempt, timedOut]).then(
      (conn) => {
        clearTimeout(timer);
        return this.connected(conn);
      },
      (err: unknown) => {
        clearTimeout(timer);
        // A connection that arrives after its attempt timed out is not used.
        attempt.then((late) => late.close()).catch(() => undefined);
        this.failed(err);
      },
    );
  }

  private async connected(conn: ClientConnection): Promise<void> {
    if (this.stateNow === "shutdown") {
      await conn.close().catch(() => undefined);
      return;
    }
    this.current = conn;
    this.stateNow = "ready";
    this.readyAt = Date.now();
    this.failures = 0;
    for (const w of this.takeWaiters(() => true)) w.resolve(conn);
    void conn.closed.then((err) => this.lost(conn, err));
  }

  private lost(conn: ClientConnection, err: Error | undefined): void {
    if (this.current !== conn || this.stateNow === "shutdown") return;
    this.current = undefined;
    this.lastError = new NearwireError(
      Code.Unavailable,
      `connection lost: ${err === undefined ? "closed by the peer" : messageOf(err)}`,
      { reason: "peer-closed", ...(err === undefined ? {} : { cause: err }) },
    );
    // After a connection that worked, the first attempt is immediate (connection-backoff.md).
    // One lost sooner than the initial backoff counts as a failure for the schedule, so that a
    // server that accepts and drops connections is not redialled in a tight loop.
    if (Date.now() - this.readyAt >= this.backoff.initialMs) {
      this.backoff.reset();
      this.connect();
    } else this.waitAndRetry();
  }

  private failed(err: unknown): void {
    if (this.stateNow === "shutdown") return;
    const cause = NearwireError.from(err, Code.Unavailable);
    this.lastError =
      cause.code === Code.Unavailable
        ? cause
        : new NearwireError(Code.Unavailable, `connect failed: ${cause.message}`, { cause });
    this.failures += 1;
    const max = this.options.maxConnectAttempts;
    if (max !== undefined && this.failures >= max) {
      const gaveUp = new NearwireError(
        Code.Unavailable,
        `gave up after ${this.failures} failed connection attempts (maxConnectAttempts ${max}): ${this.lastError.message}`,
        { reason: "reconnect-exhausted", cause: this.lastError },
      );
      this.shutdown(gaveUp, gaveUp);
      return;
    }
    this.waitAndRetry();
  }

  /** Enters transient failure: fails calls that do not wait, and connects after the backoff. */
  private waitAndRetry(): void {
    this.stateNow = "transient-failure";
    const failFast = this.takeWaiters((w) => !w.waitForReady);
    for (const w of failFast) w.reject(this.unavailable());
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.stateNow === "transient-failure") this.connect();
    }, this.backoff.next());
  }

  private shutdown(err: NearwireError, closedWith: Error | undefined): void {
    this.stateNow = "shutdown";
    this.finalError = err;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    for (const w of this.takeWaiters(() => true)) w.reject(err);
    this.resolveClosed(closedWith);
  }

  private takeWaiters(which: (w: Waiter) => boolean): Waiter[] {
    const taken = [...this.waiters].filter(which);
    for (const w of taken) this.waiters.delete(w);
    return taken;
  }

  private unavailable(): NearwireError {
    const last = this.lastError;
    return new NearwireError(
      Code.Unavailable,
      `not connected (no waitForReady): ${last?.message ?? "connecting"}`,
      { reason: last?.reason ?? "peer-closed", ...(last === undefined ? {} : { cause: last }) },
    );
  }
}
