/** bindClient: the typed methods of a client, one per method kind, over a {@link CallSite}. */
import {
  type CallOptions,
  Code,
  type Codec,
  NearwireError,
  type ServiceDefinition,
} from "@nearwire/core";
import {
  type BoundMethod,
  bindService,
  InboundStream,
  timeoutError,
} from "@nearwire/core/transport-kit";
import { type CallSite, ClientCall } from "./client-call.js";

// biome-ignore lint/suspicious/noExplicitAny: one record of four call signatures.
type AnyMethod = (...args: any[]) => any;
type Source = AsyncIterable<unknown> | Iterable<unknown>;

/** Builds the typed client of `service`: one function per method, bound once. */
export function bindClient(
  site: CallSite,
  service: ServiceDefinition,
  codec: Codec,
): Record<string, AnyMethod> {
  const client: Record<string, AnyMethod> = {};
  // Paths and message codecs come from core's bindService, as on every transport.
  for (const bound of bindService(service, codec)) {
    switch (bound.kind) {
      case "unary":
        client[bound.name] = (request: unknown, options?: CallOptions) =>
          unaryCall(site, bound, request, options);
        break;
      case "server_streaming":
        client[bound.name] = (request: unknown, options?: CallOptions) =>
          streamCall(site, bound, options, (call) => call.startUnary(request));
        break;
      case "client_streaming":
        client[bound.name] = (requests: Source, options?: CallOptions) =>
          clientStreamCall(site, bound, requests, options);
        break;
      case "bidi_streaming":
        client[bound.name] = (requests: Source, options?: CallOptions) =>
          streamCall(site, bound, options, (call) => call.startStreaming(requests));
        break;
    }
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

function unaryCall(
  site: CallSite,
  bound: BoundMethod,
  request: unknown,
  options: CallOptions | undefined,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    precheck(site, options);
    new ClientCall(site, bound, options, { kind: "one", resolve, reject }).startUnary(request);
  });
}

function clientStreamCall(
  site: CallSite,
  bound: BoundMethod,
  requests: Source,
  options: CallOptions | undefined,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    precheck(site, options);
    new ClientCall(site, bound, options, { kind: "one", resolve, reject }).startStreaming(requests);
  });
}

/** A streamed response: the call starts when iteration starts; leaving early cancels it. */
async function* streamCall(
  site: CallSite,
  bound: BoundMethod,
  options: CallOptions | undefined,
  start: (call: ClientCall) => void,
): AsyncGenerator<unknown, void, undefined> {
  precheck(site, options);
  const inbound = new InboundStream<unknown>();
  start(new ClientCall(site, bound, options, { kind: "stream", inbound }));
  yield* inbound;
}
