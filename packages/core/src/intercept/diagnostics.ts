/**
 * `node:diagnostics_channel` events of every call, on both sides (as `undici` and `node:http`
 * publish theirs). Nothing is made per call while no one subscribes to the start channel.
 */
import diagnosticsChannel from "node:diagnostics_channel";
import { Code } from "../code.js";
import { NearwireError } from "../nearwire-error.js";
import type { CallRequest, CallResponse, Interceptor } from "./interceptor.js";
import { onStreamEnd } from "./stream-end.js";

/** A call started: `{ request }` (the request as interceptors see it). */
export const clientCallStart = diagnosticsChannel.channel("nearwire:client:call:start");
/** A call ended, successfully or not: `{ request, response?, error?, code, durationMs }`. */
export const clientCallEnd = diagnosticsChannel.channel("nearwire:client:call:end");
/** A call failed: `{ request, error }`, just before its end event. */
export const clientCallError = diagnosticsChannel.channel("nearwire:client:call:error");
/** The same three on the server: a handler call started, ended, failed. */
export const serverCallStart = diagnosticsChannel.channel("nearwire:server:call:start");
export const serverCallEnd = diagnosticsChannel.channel("nearwire:server:call:end");
export const serverCallError = diagnosticsChannel.channel("nearwire:server:call:error");

/** The message of a start event. */
export interface CallStartEvent {
  readonly request: CallRequest;
}

/** The message of an end event. */
export interface CallEndEvent {
  readonly request: CallRequest;
  /** The response (its trailers filled), unless the call failed. */
  readonly response: CallResponse | undefined;
  /** The error the call failed with, or undefined. */
  readonly error: NearwireError | undefined;
  /** The status code: 0 (OK) or the error's. */
  readonly code: Code;
  /** From the start event to the end (for a streamed response: its last message), ms. */
  readonly durationMs: number;
}

/** The message of an error event. */
export interface CallErrorEvent {
  readonly request: CallRequest;
  readonly error: NearwireError;
}

/** The interceptor that publishes one side's events; outermost in a chain. */
export function diagnosticsInterceptor(side: "client" | "server"): Interceptor {
  const start = side === "client" ? clientCallStart : serverCallStart;
  const end = side === "client" ? clientCallEnd : serverCallEnd;
  const error = side === "client" ? clientCallError : serverCallError;
  return (next) => async (request) => {
    const t0 = performance.now();
    start.publish({ request } satisfies CallStartEvent);
    const finish = (response: CallResponse | undefined, thrown: unknown): void => {
      const e = thrown === undefined ? undefined : NearwireError.from(thrown, Code.Unknown);
      if (e !== undefined && error.hasSubscribers)
        error.publish({ request, error: e } satisfies CallErrorEvent);
      if (end.hasSubscribers) {
        end.publish({
          request,
          response,
          error: e,
          code: e === undefined ? Code.OK : e.code,
          durationMs: performance.now() - t0,
        } satisfies CallEndEvent);
      }
    };
    let response: CallResponse;
    try {
      response = await next(request);
    } catch (err) {
      finish(undefined, err);
      throw err;
    }
    if (!response.stream) finish(response, undefined);
    else response.message = onStreamEnd(response.message, (err) => finish(response, err));
    return response;
  };
}
