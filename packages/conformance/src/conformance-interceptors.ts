/**
 * The intercepted copy of the conformance service: the same methods and handlers under another
 * name, served inside {@link serverInterceptors}, so that the interceptors suite checks a
 * server's interceptors across the process boundary without touching the other suites' calls.
 */
import diagnosticsChannel from "node:diagnostics_channel";
import {
  type CallEndEvent,
  type CallStartEvent,
  Code,
  defineService,
  type Interceptor,
  NearwireError,
} from "@nearwire/core";
import { conformanceService } from "./conformance-service.js";

/** `nearwire.conformance.Intercepted`: {@link conformanceService}'s methods, intercepted. */
export const interceptedService = defineService(
  "nearwire.conformance.Intercepted",
  conformanceService.methods,
);

/**
 * Request headers the server interceptors act on:
 * - `x-deny`: the call fails PERMISSION_DENIED before the handler (a short-circuit);
 * - `x-transform`: request `text` gets `in:` in front, response `text` gets `:out` behind
 *   (each message of a response stream too, which is counted into the trailer `x-count`);
 * - `x-diag: start`: this server subscribes to its `nearwire:server:call:*` channels;
 *   `x-diag: report`: the events seen since come back in the trailer `x-diag` (JSON
 *   `[phase, path, code]` triples), and the server unsubscribes.
 * Every response that reaches the interceptors gets the header `x-kind` (the call kind) and the
 * trailer `x-path` (the method path).
 */
export const INTERCEPTOR_HEADERS = {
  deny: "x-deny",
  transform: "x-transform",
  diagnostics: "x-diag",
} as const;

/** The server's interceptors, outermost first. */
export function serverInterceptors(): Interceptor[] {
  return [diagnosticsProbe(), deny, stamp, transform];
}

const deny: Interceptor = (next) => async (req) => {
  if (req.metadata[INTERCEPTOR_HEADERS.deny] !== undefined)
    throw new NearwireError(Code.PermissionDenied, `denied by an interceptor: ${req.path}`);
  return next(req);
};

const stamp: Interceptor = (next) => async (req) => {
  const res = await next(req);
  res.headers["x-kind"] = req.kind;
  res.trailers["x-path"] = req.path;
  return res;
};

type WithText = { text?: string };

const transform: Interceptor = (next) => async (req) => {
  if (req.metadata[INTERCEPTOR_HEADERS.transform] === undefined) return next(req);
  if (!req.stream) {
    const m = req.message as WithText;
    req.message = { ...m, text: `in:${m.text ?? ""}` };
  }
  const res = await next(req);
  const out = (m: unknown) => ({ ...(m as WithText), text: `${(m as WithText).text ?? ""}:out` });
  if (!res.stream) {
    res.message = out(res.message);
    return res;
  }
  const source = res.message;
  res.message = (async function* () {
    let n = 0;
    for await (const m of source) {
      n++;
      yield out(m);
    }
    res.trailers["x-count"] = String(n);
  })();
  return res;
};

/** Subscribes to and reports this process's server call events on request (`x-diag`). */
function diagnosticsProbe(): Interceptor {
  const seen: [string, string, number][] = [];
  const onStart = (m: unknown) => seen.push(["start", (m as CallStartEvent).request.path, -1]);
  const onEnd = (m: unknown) => {
    const e = m as CallEndEvent;
    seen.push(["end", e.request.path, e.code]);
  };
  const onError = (m: unknown) => {
    const e = m as CallEndEvent;
    seen.push(["error", e.request.path, (e.error as NearwireError).code]);
  };
  const channels = [
    ["nearwire:server:call:start", onStart],
    ["nearwire:server:call:end", onEnd],
    ["nearwire:server:call:error", onError],
  ] as const;
  return (next) => async (req) => {
    const what = req.metadata[INTERCEPTOR_HEADERS.diagnostics];
    if (what === "start") {
      seen.length = 0;
      for (const [name, fn] of channels) diagnosticsChannel.subscribe(name, fn);
    }
    const res = await next(req);
    if (what === "report") {
      for (const [name, fn] of channels) diagnosticsChannel.unsubscribe(name, fn);
      res.trailers[INTERCEPTOR_HEADERS.diagnostics] = JSON.stringify(seen);
      seen.length = 0;
    }
    return res;
  };
}
