/** forEachMessage: a receive loop over a message iterator with no promise per message. */
import { nextNow, type SideDoorIterator, whenReady } from "./next-now.js";

/**
 * What {@link forEachMessage} calls per message: true stops the loop; a promise (a thenable)
 * makes it wait, and stops it when it resolves to true; anything else goes on to the next
 * message.
 */
export type EachMessage<T> = (value: T) => unknown;

/**
 * Calls `each` for every message of `it`, in order, until the stream ends (resolves false) or
 * `each` stops it (resolves true). Rejects with the stream's error, or with what `each` threw or
 * its promise rejected with; unlike `for await` it never closes the stream (`return()`): a
 * caller that stops early decides that.
 *
 * Messages at hand are taken through `[nextNow]()`, and a stream with `[whenReady]()` (core's
 * received streams) is waited on with a callback: a loop that keeps up with its sender makes no
 * promise per message. `each` may then run from the engine's receive path, as a message
 * arrives. An iterator without them (or whose `[whenReady]()` declines) is read with `next()`.
 */
export function forEachMessage<T>(it: AsyncIterator<T>, each: EachMessage<T>): Promise<boolean> {
  const src = it as SideDoorIterator<T>;
  return new Promise<boolean>((resolve, reject) => {
    /** Takes one result; true when the loop goes on now. */
    const take = (r: IteratorResult<T>): boolean => {
      if (r.done === true) {
        resolve(false);
        return false;
      }
      const out = each(r.value);
      if (out === true) {
        resolve(true);
        return false;
      }
      if (isThenable(out)) {
        out.then(after, reject);
        return false;
      }
      return true;
    };
    const after = (stop: unknown): void => {
      if (stop === true) resolve(true);
      else step();
    };
    const onResult = (r: IteratorResult<T>): void => {
      try {
        if (take(r)) step();
      } catch (err) {
        reject(err);
      }
    };
    const step = (): void => {
      try {
        for (;;) {
          const now = src[nextNow]?.();
          if (now === undefined) break;
          if (!take(now)) return;
        }
        if (src[whenReady]?.(step) !== true) src.next().then(onResult, reject);
      } catch (err) {
        reject(err);
      }
    };
    step();
  });
}

function isThenable(x: unknown): x is PromiseLike<unknown> {
  return (
    (typeof x === "object" || typeof x === "function") &&
    x !== null &&
    typeof (x as { then?: unknown }).then === "function"
  );
}
