/** bindHandlers: what a server of any transport serves for a service, and ServedMethod. */
import { Code } from "../code.js";
import { type Handler, serverHandler } from "../intercept/server-chain.js";
import { NearwireError } from "../nearwire-error.js";
import type { ServiceDefinition } from "../service.js";
import type { BindOptions } from "../transport.js";
import { type BoundMethod, bindService } from "./bound-method.js";
import { lendsMessages } from "./lend-messages.js";

/** A served method: its binding and its handler. */
export interface ServedMethod {
  readonly bound: BoundMethod;
  readonly impl: (input: unknown, ctx: never) => unknown;
  /**
   * The handler lends its request messages (`lendMessages`, a client- or bidi-streaming method
   * served without interceptors): the engine may reuse a message's buffer once the handler asks
   * for the next.
   */
  readonly lends: boolean;
}

/**
 * What a server of any transport serves for `service`: each method bound to `options.codec`
 * with its handler from `impl` (bound to `impl`) inside `options.interceptors`. Checks every method before returning, so a refused
 * service leaves the server as it was: INVALID_ARGUMENT when a handler is missing or not a
 * function, or a path is too long (see {@link bindService}).
 */
export function bindHandlers(
  service: ServiceDefinition,
  impl: object,
  options: BindOptions,
): ServedMethod[] {
  return bindService(service, options.codec).map((bound) => {
    const fn = (impl as Record<string, unknown>)[bound.name];
    if (typeof fn !== "function")
      throw new NearwireError(Code.InvalidArgument, `no handler for ${bound.path}`);
    const handler = serverHandler(bound, fn.bind(impl) as Handler, options.interceptors);
    const lends =
      lendsMessages(fn) &&
      (options.interceptors === undefined || options.interceptors.length === 0) &&
      (bound.kind === "client_streaming" || bound.kind === "bidi_streaming");
    return { bound, impl: handler as ServedMethod["impl"], lends };
  });
}
