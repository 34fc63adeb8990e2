/** untilAny: waits for the first of some events of an emitter. */
import type { EventEmitter } from "node:events";

/**
 * Resolves when `emitter` emits any of `events` (for example 'drain', or an event after which
 * nothing will drain), and removes every listener it added.
 */
export function untilAny(
  emitter: Pick<EventEmitter, "on" | "off">,
  events: readonly string[],
): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const e of events) emitter.off(e, done);
      resolve();
    };
    for (const e of events) emitter.on(e, done);
  });
}
