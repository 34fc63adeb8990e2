import { Worker, type WorkerOptions } from "node:worker_threads";
import type { BindOptions, Client, ClientConnection, ServiceDefinition } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import { failedCall } from "./failed-call.js";
import { recordDeath } from "./worker-death.js";
import { createWorkerTransport, type WorkerTransportOptions } from "./worker-transport.js";

/** Options of {@link createWorkerPool}: the transport's (without `port`) plus the workers'. */
export type WorkerPoolOptions = Omit<WorkerTransportOptions, "port"> & {
  /** Worker entry: a script that serves with `createWorkerTransport({ port: parentPort })`. */
  file: string | URL;
  /** Number of workers (≥ 1). */
  size: number;
  /** Passed to each `new Worker(file, workerOptions)`. */
  workerOptions?: WorkerOptions;
  /**
   * How many times one worker slot is restarted within `restartWindowMs` (default 5); the
   * next death in that window is a crash loop and the slot stays empty. 0: never restart.
   */
  maxRestarts?: number;
  /** The window of `maxRestarts`, ms (default 60,000). */
  restartWindowMs?: number;
  /**
   * Delay before a replacement starts, ms (default 100); doubled for each restart of the slot
   * still in the window (100, 200, 400, …), at most 10,000.
   */
  restartDelayMs?: number;
};

/** N workers with one connection (one ring pair) each; dead workers are replaced. */
export interface WorkerPool {
  /** The current worker of each slot (a dead one until its replacement starts). */
  readonly workers: readonly Worker[];
  /** The current connection of each slot (a closed one until its replacement connects). */
  readonly connections: readonly ClientConnection[];
  /**
   * A client whose calls go round-robin over the connections still open (a worker that died is
   * skipped until its replacement has connected). With none open, calls fail UNAVAILABLE:
   * `peer-closed` while replacements are on their way, `crash-loop` once every slot gave up.
   */
  client<S extends ServiceDefinition>(service: S, bind: BindOptions): Client<S>;
  /** Closes every connection, then terminates every worker; no worker is restarted after. */
  close(): Promise<void>;
  /** `close()`, for `await using pool = await createWorkerPool(…)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** What was thrown, as `Name: message` for an Error. */
const messageOf = (err: unknown): string =>
  err instanceof Error ? `${err.name}: ${err.message}` : String(err);

/** Longest delay before a replacement, ms. */
const MAX_RESTART_DELAY_MS = 10_000;

/** One place in the pool: its current worker and connection, and its recent restarts. */
interface Slot {
  readonly index: number;
  worker: Worker;
  connection: ClientConnection | undefined;
  open: boolean;
  /** Why the current worker died (its `'error'`, its exit code, or its failed set-up). */
  cause: string | undefined;
  /** When the slot was restarted, ms (`performance.now()`), within the window. */
  restarts: number[];
  timer: NodeJS.Timeout | undefined;
  /** Set when the slot stopped restarting (a crash loop). */
  gaveUp: NearwireError | undefined;
}

/**
 * Starts `size` workers running `file`, connects to each over its own rings, and spreads calls
 * over them. Rejects (terminating the workers it started) if any worker fails its first
 * set-up. Afterwards a worker that dies in any way — an uncaught throw, `process.exit`, an
 * out-of-memory end, a replacement that does not accept within `handshakeTimeoutMs` — fails
 * only the calls it had (UNAVAILABLE `peer-closed`, the message naming the cause) and is
 * replaced after a backoff, up to `maxRestarts` per `restartWindowMs`. The pool listens for its
 * workers' `'error'` events, so none reaches the process as an unhandled error.
 *
 * @example
 * ```ts
 * import { jsonCodec } from "@nearwire/core";
 * import { createWorkerPool } from "@nearwire/worker";
 * import { Greeter } from "./greeter.js";
 *
 * // greeter-worker.js serves Greeter: createWorkerTransport({ port: parentPort }).createServer()
 * await using pool = await createWorkerPool({
 *   file: new URL("./greeter-worker.js", import.meta.url),
 *   size: 4,
 * });
 * const greeter = pool.client(Greeter, { codec: jsonCodec }); // each call: the next worker
 * const replies = await Promise.all(["Ada", "Grace"].map((name) => greeter.say({ name })));
 * ```
 */
export async function createWorkerPool(options: WorkerPoolOptions): Promise<WorkerPool> {
  const pool = new Pool(poolSetup(options));
  await pool.start();
  return pool;
}

/** The options of {@link createWorkerPool}, checked and with their defaults. */
interface PoolSetup {
  readonly file: string | URL;
  readonly size: number;
  readonly workerOptions: WorkerOptions | undefined;
  readonly maxRestarts: number;
  readonly restartWindowMs: number;
  readonly restartDelayMs: number;
  readonly transportOptions: Omit<WorkerTransportOptions, "port">;
}

/** Checks `options` (INVALID_ARGUMENT) and fills in the defaults. */
function poolSetup(options: WorkerPoolOptions): PoolSetup {
  const {
    file,
    size,
    workerOptions,
    maxRestarts = 5,
    restartWindowMs = 60_000,
    restartDelayMs = 100,
    ...transportOptions
  } = options;
  if (!Number.isInteger(size) || size < 1)
    throw new NearwireError(Code.InvalidArgument, `pool size ${size} is not a positive integer`);
  for (const [name, value] of [
    ["maxRestarts", maxRestarts],
    ["restartWindowMs", restartWindowMs],
    ["restartDelayMs", restartDelayMs],
  ] as const) {
    if (!Number.isInteger(value) || value < 0)
      throw new NearwireError(Code.InvalidArgument, `${name} ${value} is not an integer ≥ 0`);
  }
  return {
    file,
    size,
    workerOptions,
    maxRestarts,
    restartWindowMs,
    restartDelayMs,
    transportOptions,
  };
}

/** The pool: its slots, their restarts, and the round-robin over the open ones. */
class Pool implements WorkerPool {
  readonly #setup: PoolSetup;
  readonly #slots: Slot[] = [];
  #closing = false;
  #next = 0;

  constructor(setup: PoolSetup) {
    this.#setup = setup;
  }

  get workers(): readonly Worker[] {
    return this.#slots.map((s) => s.worker);
  }

  get connections(): readonly ClientConnection[] {
    return this.#slots.map((s) => s.connection as ClientConnection); // set once the pool resolved
  }

  /** Starts every slot's first worker; rejects (closing what started) if one fails. */
  async start(): Promise<void> {
    const first: Promise<void>[] = [];
    try {
      for (let index = 0; index < this.#setup.size; index++) {
        const slot: Slot = {
          index,
          worker: undefined as unknown as Worker,
          connection: undefined,
          open: false,
          cause: undefined,
          restarts: [],
          timer: undefined,
          gaveUp: undefined,
        };
        first.push(this.#startWorker(slot)); // sets slot.worker, or throws (bad workerOptions)
        this.#slots.push(slot);
      }
      await Promise.all(first);
    } catch (err) {
      await this.close();
      await Promise.allSettled(first);
      throw err;
    }
  }

  client<S extends ServiceDefinition>(service: S, bind: BindOptions): Client<S> {
    type Methods = Record<string, (...a: unknown[]) => unknown>;
    const clients = new WeakMap<ClientConnection, Methods>();
    const clientOf = (conn: ClientConnection): Methods => {
      let c = clients.get(conn);
      if (c === undefined) {
        c = conn.client(service, bind) as unknown as Methods;
        clients.set(conn, c);
      }
      return c;
    };
    const out: Record<string, unknown> = {};
    for (const [name, method] of Object.entries(service.methods)) {
      out[name] = (...args: unknown[]) => {
        const slot = this.#pick();
        if (slot?.connection === undefined) return failedCall(method.kind, this.#noWorker());
        return (clientOf(slot.connection)[name] as (...a: unknown[]) => unknown)(...args);
      };
    }
    return out as Client<S>;
  }

  async close(): Promise<void> {
    this.#closing = true;
    for (const slot of this.#slots) clearTimeout(slot.timer);
    await Promise.allSettled(this.#slots.map((s) => s.connection?.close()));
    await Promise.allSettled(this.#slots.map((s) => s.worker.terminate()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Starts a worker in `slot` and connects to it; resolves when connected or dead. */
  #startWorker(slot: Slot): Promise<void> {
    const worker = new Worker(this.#setup.file, this.#setup.workerOptions);
    slot.worker = worker;
    slot.cause = undefined;
    worker.on("error", (err) => {
      slot.cause ??= `threw ${messageOf(err)}`;
      recordDeath(worker, slot.cause);
    });
    worker.once("exit", (code) => {
      slot.cause ??= `exited with code ${code}`;
      this.#died(slot, worker);
    });
    return createWorkerTransport({ ...this.#setup.transportOptions, port: worker })
      .connect()
      .then(
        (conn) => {
          if (this.#closing || slot.worker !== worker) {
            void conn.close();
            return;
          }
          slot.connection = conn;
          slot.open = true;
          void conn.closed.then(() => {
            if (slot.connection !== conn) return;
            slot.open = false;
            // A connection that ended with its worker alive (a protocol error): replace both.
            void worker.terminate();
          });
        },
        (err: unknown) => {
          slot.cause ??= `set-up failed: ${messageOf(err)}`;
          void worker.terminate();
          throw err;
        },
      );
  }

  /** `worker`, the current one of `slot`, exited: restart it after a backoff, or give up. */
  #died(slot: Slot, worker: Worker): void {
    if (this.#closing || slot.worker !== worker) return;
    slot.open = false;
    const { maxRestarts, restartWindowMs, restartDelayMs } = this.#setup;
    const now = performance.now();
    slot.restarts = slot.restarts.filter((t) => now - t < restartWindowMs);
    const cause = slot.cause ?? "died";
    if (slot.restarts.length >= maxRestarts) {
      slot.gaveUp = new NearwireError(
        Code.Unavailable,
        `pool worker ${slot.index} died ${slot.restarts.length + 1} times within ` +
          `${restartWindowMs} ms (last: ${cause}); it is not restarted (maxRestarts ${maxRestarts})`,
        { reason: "crash-loop" },
      );
      return;
    }
    const delay = Math.min(restartDelayMs * 2 ** slot.restarts.length, MAX_RESTART_DELAY_MS);
    slot.restarts.push(now);
    slot.timer = setTimeout(() => this.#restart(slot), delay);
  }

  /** The backoff of `slot` is over: start its replacement, unless the pool is closing. */
  #restart(slot: Slot): void {
    slot.timer = undefined;
    if (this.#closing) return;
    try {
      this.#startWorker(slot).catch(() => {}); // a failed set-up ends in `exit`: #died again
    } catch (err) {
      slot.gaveUp = new NearwireError(
        Code.Unavailable,
        `pool worker ${slot.index} could not be restarted: ${messageOf(err)}`,
        { reason: "crash-loop", cause: err },
      );
    }
  }

  /** The next open slot after the last one picked, or undefined when none is open. */
  #pick(): Slot | undefined {
    const size = this.#setup.size;
    for (let k = 0; k < size; k++) {
      const slot = this.#slots[(this.#next + k) % size] as Slot;
      if (slot.open) {
        this.#next = (slot.index + 1) % size;
        return slot;
      }
    }
    return undefined;
  }

  /** Why a call finds no open worker. */
  #noWorker(): NearwireError {
    if (this.#closing)
      return new NearwireError(Code.Unavailable, "worker pool closed", { reason: "peer-closed" });
    const size = this.#setup.size;
    const stopped = this.#slots.filter((s) => s.gaveUp !== undefined);
    if (stopped.length === size)
      return new NearwireError(
        Code.Unavailable,
        `every worker of the pool stopped in a crash loop: ${stopped.map((s) => s.gaveUp?.message).join("; ")}`,
        { reason: "crash-loop" },
      );
    const causes = this.#slots.map((s) => s.cause).filter((c) => c !== undefined);
    return new NearwireError(
      Code.Unavailable,
      `no worker of the pool is running; ${size - stopped.length} being replaced (${causes.join("; ")})`,
      { reason: "peer-closed" },
    );
  }
}
