/** bindClient: the typed methods of a client, one per method kind, over a {@link CallSite}. */
import {
  type BindOptions,
  type CallOptions,
  Code,
  NearwireError,
  type ServiceDefinition,
} from "@nearwire/core";
import {
  type BoundMethod,
  bindService,
  type ClientMethod,
  clientMethod,
  InboundStream,
  timeoutError,
} from "@nearwire/core/transport-kit";
import { type CallSite, ClientCall } from "./client-call.js";
import { ResponseStream } from "./response-stream.js";

/**
 * Builds the typed client of `service`: one function per method, bound once. Each takes its
 * input (a request, or a request stream for client streaming and bidi) and the call options;
 * the methods answered with one message return a promise, the others a stream.
 */
export function bindClient(
  site: CallSite,
  service: ServiceDefinition,
  options: BindOptions,
): Record<string, ClientMethod> {
  const client: Record<string, ClientMethod> = {};
  // Paths and message codecs come from core's bindService, interceptors and diagnostics from
  // its clientMethod, as on every transport.
  for (const bound of bindService(service, options.codec)) {
    const streamsResponses = bound.kind === "server_streaming" || bound.kind === "bidi_streaming";
    const call: ClientMethod = streamsResponses
      ? (input, o) => streamCall(site, bound, input, o)
      : (input, o) => oneCall(site, bound, input, o);
    client[bound.name] = clientMethod(bound, call, options.interceptors);
  }
  return client;
}

/**
 * Throws what makes a call fail before anything is sent: a closed connection, an aborted
 * signal, a `timeoutMs` not above 0 (DEADLINE_EXCEEDED at once, the rule of every transport).
 */
function precheck(site: CallSite, options: CallOptions | undefined): void {
  const session = site.session;
  if (session instanceof NearwireError) throw session;
  if (options === undefined) return;
  if (options.signal?.aborted === true)
    throw new NearwireError(Code.Canceled, "call cancelled before it started", {
      cause: options.signal.reason,
    });
  const timeoutMs = options.timeoutMs;
  if (timeoutMs !== undefined && !(timeoutMs > 0)) throw timeoutError(timeoutMs);
}

/** A call answered with one message (unary, client streaming). */
function oneCall(
  site: CallSite,
  bound: BoundMethod,
  input: unknown,
  options: CallOptions | undefined,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    precheck(site, options);
    new ClientCall(site, bound, options, { kind: "one", resolve, reject }).start(input);
  });
}

/** A streamed response: the call starts when iteration starts; leaving early cancels it. */
function streamCall(
  site: CallSite,
  bound: BoundMethod,
  input: unknown,
  options: CallOptions | undefined,
): ResponseStream {
  return new ResponseStream(() => {
    precheck(site, options);
    const inbound = new InboundStream<unknown>();
    new ClientCall(site, bound, options, { kind: "stream", inbound }).start(input);
    return inbound;
  });
}
