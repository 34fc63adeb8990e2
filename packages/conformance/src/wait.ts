/** Bounded waits and error assertions of the suites (hang guards, not timing claims). */
import assert from "node:assert/strict";
import { type Code, codeName, type NearwireError } from "@nearwire/core";

/**
 * Polls `probe` every `intervalMs` until it returns a value other than undefined; rejects after
 * `timeoutMs` (a hang guard, not a timing assertion). Defaults: 5000 ms, 20 ms.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const intervalMs = options.intervalMs ?? 20;
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Rejects if `promise` has not settled within `ms` (a hang guard); otherwise settles like it. */
export function hangGuard<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: ${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

/** Asserts that `err` is a NearwireError (by name, so duplicated module copies still match). */
export function assertNearwireError(err: unknown, what: string): asserts err is NearwireError {
  assert.ok(
    err instanceof Error &&
      err.name === "NearwireError" &&
      typeof (err as NearwireError).code === "number",
    `${what}: expected a NearwireError, got ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`,
  );
}

/**
 * Awaits `promise` (or runs the function) and asserts that it rejects with a NearwireError of
 * `code`; returns the error. Compares code names so failures read `UNAVAILABLE !== CANCELLED`.
 */
export async function expectCode(
  promise: Promise<unknown> | (() => Promise<unknown>),
  code: Code,
  what: string,
): Promise<NearwireError> {
  let value: unknown;
  try {
    value = await (typeof promise === "function" ? promise() : promise);
  } catch (err) {
    assertNearwireError(err, what);
    assert.equal(codeName(err.code), codeName(code), `${what}: wrong code (${err.message})`);
    return err;
  }
  assert.fail(
    `${what}: expected ${codeName(code)}, but it succeeded with ${JSON.stringify(value)?.slice(0, 200)}`,
  );
}

/** Reads an async iterable to its end; returns the items, or throws what the iteration threw. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** A promise that resolves on `open()` or after `maxMs`, whichever comes first (no timer left). */
export interface Gate {
  readonly promise: Promise<void>;
  open(): void;
}

/** Creates a {@link Gate}: bounded waits for generators that must hold a stream open. */
export function createGate(maxMs: number): Gate {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, maxMs);
    open = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  return { promise, open };
}
