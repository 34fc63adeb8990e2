import { Worker, type WorkerOptions } from "node:worker_threads";
import type { BindOptions, Client, ClientConnection, ServiceDefinition } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import { createWorkerTransport, type WorkerTransportOptions } from "./worker-transport.js";

/** Options of {@link createWorkerPool}: the transport's (without `port`) plus the workers'. */
export type WorkerPoolOptions = Omit<WorkerTransportOptions, "port"> & {
  /** Worker entry: a script that serves with `createWorkerTransport({ port: parentPort })`. */
  file: string | URL;
  /** Number of workers (≥ 1). */
  size: number;
  /** Passed to each `new Worker(file, workerOptions)`. */
  workerOptions?: WorkerOptions;
};

/** N workers with one connection (one ring pair) each. */
export interface WorkerPool {
  readonly workers: readonly Worker[];
  readonly connections: readonly ClientConnection[];
  /**
   * A client whose calls go round-robin over the connections still open (a worker that died is
   * skipped; it is not restarted). With none left, calls fail UNAVAILABLE.
   */
  client<S extends ServiceDefinition>(service: S, bind: BindOptions): Client<S>;
  /** Closes every connection, then terminates every worker. */
  close(): Promise<void>;
  /** `close()`, for `await using pool = await createWorkerPool(…)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts `size` workers running `file`, connects to each over its own rings, and spreads calls
 * over them. Rejects (terminating the workers it started) if any worker fails to accept.
 */
export async function createWorkerPool(options: WorkerPoolOptions): Promise<WorkerPool> {
  const { file, size, workerOptions, ...transportOptions } = options;
  if (!Number.isInteger(size) || size < 1)
    throw new NearwireError(Code.InvalidArgument, `pool size ${size} is not a positive integer`);
  const workers = Array.from({ length: size }, () => new Worker(file, workerOptions));
  let connections: ClientConnection[];
  try {
    connections = await Promise.all(
      workers.map((port) => createWorkerTransport({ ...transportOptions, port }).connect()),
    );
  } catch (err) {
    await Promise.allSettled(workers.map((w) => w.terminate()));
    throw err;
  }
  const open = connections.map(() => true);
  connections.forEach((c, i) => {
    void c.closed.then(() => {
      open[i] = false;
    });
  });
  let next = 0;
  const pick = (): number => {
    for (let k = 0; k < size; k++) {
      const i = (next + k) % size;
      if (open[i]) {
        next = (i + 1) % size;
        return i;
      }
    }
    return -1;
  };
  const pool: WorkerPool = {
    workers,
    connections,
    client<S extends ServiceDefinition>(service: S, bind: BindOptions): Client<S> {
      const clients = connections.map((c) => c.client(service, bind) as Record<string, unknown>);
      const out: Record<string, unknown> = {};
      for (const name of Object.keys(service.methods)) {
        out[name] = (...args: unknown[]) => {
          const i = pick();
          const target = clients[i === -1 ? 0 : i] as Record<string, (...a: unknown[]) => unknown>;
          return (target[name] as (...a: unknown[]) => unknown)(...args);
        };
      }
      return out as Client<S>;
    },
    async close() {
      await Promise.allSettled(connections.map((c) => c.close()));
      await Promise.allSettled(workers.map((w) => w.terminate()));
    },
    [Symbol.asyncDispose]() {
      return pool.close();
    },
  };
  return pool;
}
