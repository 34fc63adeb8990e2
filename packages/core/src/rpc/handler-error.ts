/** What a server does with an error a handler threw that is not a NearwireError. */
import { Code } from "../code.js";
import { messageOf, NearwireError } from "../nearwire-error.js";
import type { Peer } from "../peer.js";

/** The call a handler error came from. */
export interface HandlerErrorInfo {
  /** `/package.Service/Method`. */
  readonly method: string;
  readonly peer: Peer;
}

/**
 * Told of each error a handler throws that is not a NearwireError; returns what the client
 * gets (undefined: UNKNOWN with the error's message).
 */
export type HandlerErrorHook = (
  error: unknown,
  call: HandlerErrorInfo,
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook that only logs returns nothing.
) => NearwireError | undefined | void;

/** The default hook: one `console.error` with the method, the peer and the error's stack. */
export function logHandlerError(error: unknown, call: HandlerErrorInfo): undefined {
  console.error(
    `nearwire: the handler of ${call.method} (peer ${call.peer.address}) threw:`,
    error,
  );
  return undefined;
}

/**
 * The error sent for `error`, which a handler threw and which is not a NearwireError: reported
 * to `hook` (default {@link logHandlerError}), then what it returns, or UNKNOWN with the error's
 * message. A hook that throws is reported on the console and the default is sent.
 */
export function handlerFailure(
  error: unknown,
  call: HandlerErrorInfo,
  hook: HandlerErrorHook | undefined,
): NearwireError {
  let sent: unknown;
  try {
    sent = (hook ?? logHandlerError)(error, call);
  } catch (hookError) {
    console.error(`nearwire: onHandlerError threw for ${call.method}:`, hookError);
  }
  if (sent instanceof NearwireError) return sent;
  return new NearwireError(Code.Unknown, messageOf(error), { cause: error });
}
