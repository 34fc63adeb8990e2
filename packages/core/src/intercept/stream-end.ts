/** A response stream that reports its end: what tracing and logging interceptors wrap. */
import { Code } from "../code.js";
import { NearwireError } from "../nearwire-error.js";

/** `source`, calling `done` once when it ends, fails, or is left early (as CANCELLED). */
export async function* onStreamEnd<T>(
  source: AsyncIterable<T>,
  done: (error: unknown) => void,
): AsyncGenerator<T, void, undefined> {
  let ended = false;
  try {
    yield* source;
    ended = true;
    done(undefined);
  } catch (err) {
    ended = true;
    done(err);
    throw err;
  } finally {
    if (!ended) done(new NearwireError(Code.Canceled, "response stream abandoned by the caller"));
  }
}
