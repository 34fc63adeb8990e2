import type { Worker } from "node:worker_threads";

/**
 * Why a worker died, as its owner (the pool) learnt it from the `Worker`'s `'error'` event,
 * which arrives before the worker's ports close: the channel's UNAVAILABLE `peer-closed`
 * message then names it. The channel never listens for `'error'` itself, since a listener
 * would take Node's default (the error ends the process) away from whoever owns the worker.
 */
const causes = new WeakMap<Worker, string>();

/** Records that `worker` died of `cause` (for example `threw Error: boom`). */
export function recordDeath(worker: Worker, cause: string): void {
  causes.set(worker, cause);
}

/** What {@link recordDeath} recorded for `worker`, if anything. */
export function deathOf(worker: Worker): string | undefined {
  return causes.get(worker);
}
