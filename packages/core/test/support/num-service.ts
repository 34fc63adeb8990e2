/**
 * The one test service of core's engine tests (rpc-engine, memory-transport, call-ids): every
 * call kind over a `{ n }` message, with handlers that record what the server saw.
 */
import {
  bidiStreaming,
  type Code,
  clientStreaming,
  defineService,
  type HandlerContext,
  messageType,
  NearwireError,
  type ServiceImpl,
  serverStreaming,
  unary,
} from "../../src/index.js";

/** The message of every method. */
export interface Num {
  n: number;
}

/** `test.Num`. */
export const NumT = messageType<Num>("test.Num");

/** `test.Svc`: echo (n + 1, or throws code -n), count, sum, bidi (× 2), sleep, deadline. */
export const NumService = defineService("test.Svc", {
  echo: unary(NumT, NumT),
  count: serverStreaming(NumT, NumT),
  sum: clientStreaming(NumT, NumT),
  bidi: bidiStreaming(NumT, NumT),
  sleep: unary(NumT, NumT),
  deadline: unary(NumT, NumT),
});

/** What the handlers saw: stream items produced, handlers whose signal aborted. */
export interface Seen {
  produced: number;
  aborted: number;
}

/**
 * Handlers of {@link NumService}. `echo` of a negative `n` throws that code with trailer
 * `why: negative`; `sleep` waits `n` ms or until aborted; `deadline` answers the ms left.
 */
export function numHandlers(seen: Seen): ServiceImpl<typeof NumService> {
  return {
    echo: (req) => {
      if (req.n < 0)
        throw new NearwireError(-req.n as Code, "as asked", { metadata: { why: "negative" } });
      return { n: req.n + 1 };
    },
    async *count(req) {
      for (let i = 0; i < req.n; i++) {
        seen.produced = i + 1;
        yield { n: i };
      }
    },
    async sum(reqs) {
      let s = 0;
      for await (const r of reqs) s += r.n;
      return { n: s };
    },
    async *bidi(reqs) {
      for await (const r of reqs) yield { n: r.n * 2 };
    },
    sleep: (req, ctx) =>
      new Promise<Num>((resolve) => {
        const t = setTimeout(() => resolve(req), req.n);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(t);
          seen.aborted++;
          resolve(req);
        });
      }),
    deadline: (_req, ctx: HandlerContext) => ({ n: (ctx.deadline ?? 0) - Date.now() }),
  };
}
