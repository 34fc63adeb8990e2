/** loggingInterceptor: one line per call, when it ends. */
import { Code, codeName } from "../code.js";
import { NearwireError } from "../nearwire-error.js";
import type { CallRequest, Interceptor } from "./interceptor.js";
import { onStreamEnd } from "./stream-end.js";

/** Options of {@link loggingInterceptor}. */
export interface LoggingOptions {
  /** Where each line goes. Default `console.log` for OK calls, `console.error` for failed ones. */
  log?: (line: string, request: CallRequest, error: NearwireError | undefined) => void;
}

/**
 * Logs one line per call when it ends (a streamed response: when its stream ends), on either
 * side: `server /pkg.Svc/Method OK 0.4 ms peer=uds:/run/app.sock`, or with the error's code
 * name and message: `client /pkg.Svc/Method NOT_FOUND 1.2 ms — no such user`.
 *
 * @example
 * ```ts
 * import { loggingInterceptor } from "@nearwire/core";
 *
 * const lines: string[] = [];
 * const logging = loggingInterceptor({ log: (line) => lines.push(line) });
 * // server.addService(Greeter, impl, { codec, interceptors: [logging] })
 * ```
 */
export function loggingInterceptor(options: LoggingOptions = {}): Interceptor {
  const log = options.log ?? defaultLog;
  return (next) => async (request) => {
    const t0 = performance.now();
    const done = (thrown: unknown): void => {
      const error = thrown === undefined ? undefined : NearwireError.from(thrown, Code.Unknown);
      const ms = (performance.now() - t0).toFixed(1);
      const status = error === undefined ? "OK" : codeName(error.code);
      const peer = request.peer === undefined ? "" : ` peer=${request.peer.address}`;
      const detail = error === undefined ? "" : ` — ${error.message}`;
      log(`${request.side} ${request.path} ${status} ${ms} ms${peer}${detail}`, request, error);
    };
    let response: Awaited<ReturnType<typeof next>>;
    try {
      response = await next(request);
    } catch (err) {
      done(err);
      throw err;
    }
    if (!response.stream) done(undefined);
    else response.message = onStreamEnd(response.message, done);
    return response;
  };
}

function defaultLog(line: string, _request: CallRequest, error: NearwireError | undefined): void {
  if (error === undefined) console.log(line);
  else console.error(line);
}
