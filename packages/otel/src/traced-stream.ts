/**
 * A response stream that reports how it ended: the span of a streamed call ends with the
 * stream, not when the interceptor returns.
 */
import { Code, NearwireError } from "@nearwire/core";

/** How a call failed; boxed, since JavaScript can throw `undefined`. */
export type Failure = { readonly error: unknown } | undefined;

/**
 * `source`, iterated once, calling `onEnd` exactly once: with `undefined` when it is done, with
 * the error it threw, or with a CANCELLED NearwireError when the consumer stops before the end
 * (`return()`, as a `for await` that breaks does). `run` wraps each step of the source, so that
 * a server's handler generator runs inside the call's span.
 */
export function tracedStream(
  source: AsyncIterable<unknown>,
  onEnd: (failure: Failure) => void,
  run: <T>(step: () => Promise<T>) => Promise<T>,
): AsyncIterable<unknown> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<unknown> {
      const it = source[Symbol.asyncIterator]();
      let ended = false;
      const end = (failure: Failure) => {
        if (ended) return;
        ended = true;
        onEnd(failure);
      };
      return {
        async next() {
          try {
            const r = await run(() => it.next());
            if (r.done === true) end(undefined);
            return r;
          } catch (err) {
            end({ error: err });
            throw err;
          }
        },
        async return(value?: unknown) {
          end({
            error: new NearwireError(Code.Canceled, "response stream closed by its consumer"),
          });
          const r = await run(async () => it.return?.(value));
          return r ?? { done: true, value };
        },
        async throw(error?: unknown) {
          end({ error });
          if (it.throw === undefined) throw error;
          return run(() => (it.throw as (e?: unknown) => Promise<IteratorResult<unknown>>)(error));
        },
      };
    },
  };
}
