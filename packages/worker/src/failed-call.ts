import type { MethodKind, NearwireError } from "@nearwire/core";

/**
 * A client method's result that fails with `error` without sending anything, in the shape of
 * its kind: a rejected promise (unary, client streaming) or an async iterable that throws on
 * its first step (server streaming, bidi).
 */
export function failedCall(kind: MethodKind, error: NearwireError): unknown {
  if (kind === "unary" || kind === "client_streaming") return Promise.reject(error);
  return {
    [Symbol.asyncIterator]() {
      return {
        next: () => Promise.reject(error),
        return: () => Promise.resolve({ done: true, value: undefined }),
      };
    },
  };
}
