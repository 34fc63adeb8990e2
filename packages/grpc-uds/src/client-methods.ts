import type { Http2Stream } from "node:http2";
import { addAbortSignal, Readable } from "node:stream";
import {
  type ClientDuplexStream,
  type ClientWritableStream,
  type CallOptions as GrpcCallOptions,
  type Client as GrpcClient,
  Metadata as GrpcMetadata,
  type ServiceError,
} from "@grpc/grpc-js";
import {
  type CallOptions,
  Code,
  type Codec,
  NearwireError,
  type ServiceDefinition,
} from "@nearwire/core";
import { bindService, timeoutError, withServerCodec } from "@nearwire/core/transport-kit";
import { toGrpcMetadata } from "./grpc-metadata.js";
import { serializerFor } from "./serialize.js";
import { untilAny } from "./until-event.js";

/** What the methods of a client need from their connection. */
export interface CallSite {
  /** The grpc-js client, or a NearwireError (UNAVAILABLE) once the connection is closed. */
  readonly grpcClient: GrpcClient | NearwireError;
  /** In-flight calls, cancelled with UNAVAILABLE by `ClientConnection.close`. */
  readonly calls: Set<{ cancel(): void }>;
  /** Maps a failure of a call, turning CANCELLED into UNAVAILABLE after a local close. */
  mapError(err: unknown, signal: AbortSignal | undefined): NearwireError;
}

interface BoundMethod {
  readonly path: string;
  /** The client's codec name, compared with the server's `nearwire-codec` trailer. */
  readonly codec: string;
  readonly serialize: (value: unknown) => Buffer;
  readonly deserialize: (bytes: Buffer) => unknown;
}

const NO_OPTIONS: GrpcCallOptions = {};

/**
 * A response the codec could not decode, handed through grpc-js as a value: an error thrown by
 * a deserializer becomes a plain INTERNAL there, without the reason. The call then fails with
 * INTERNAL `decode-failed`, as on the transports of the RPC engine.
 */
class Undecodable {
  readonly error: NearwireError;
  constructor(cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    this.error = new NearwireError(Code.Internal, `response decode failed: ${why}`, {
      cause,
      reason: "decode-failed",
    });
  }
}

// biome-ignore lint/suspicious/noExplicitAny: one record of four call signatures.
type AnyMethod = (...args: any[]) => any;

/** Builds the typed client of `service`: one function per method, serializers bound once. */
export function bindClient(
  site: CallSite,
  service: ServiceDefinition,
  codec: Codec,
): Record<string, AnyMethod> {
  const client: Record<string, AnyMethod> = {};
  // Paths and message codecs come from core's bindService, as on every transport.
  for (const { name, path, kind, input, output } of bindService(service, codec)) {
    const bound: BoundMethod = {
      path,
      codec: codec.name,
      serialize: serializerFor(input),
      deserialize: (bytes) => {
        try {
          return output.decode(bytes);
        } catch (cause) {
          return new Undecodable(cause);
        }
      },
    };
    switch (kind) {
      case "unary":
        client[name] = (request: unknown, options?: CallOptions) =>
          unaryCall(site, bound, request, options);
        break;
      case "server_streaming":
        client[name] = (request: unknown, options?: CallOptions) =>
          serverStreamCall(site, bound, request, options);
        break;
      case "client_streaming":
        client[name] = (requests: Source, options?: CallOptions) =>
          clientStreamCall(site, bound, requests, options);
        break;
      case "bidi_streaming":
        client[name] = (requests: Source, options?: CallOptions) =>
          bidiCall(site, bound, requests, options);
        break;
    }
  }
  return client;
}

type Source = AsyncIterable<unknown> | Iterable<unknown>;

/**
 * Longest timeout handed to grpc-js as a deadline, ms. grpc-js sends it as `grpc-timeout` (whole
 * seconds above 10^8 ms) and its server arms `setTimeout(timeout | 0)`: a value that rounds up
 * to 2^31 ms or more wraps negative and expires at once. Longer deadlines are kept by the client
 * (the server then sees none).
 */
const GRPC_MAX_TIMEOUT_MS = 0x7fffffff - 1000;

/** Clears the client-side timer of a long deadline, by the call's signal. */
const longDeadlineTimers = new WeakMap<AbortSignal, () => void>();

/**
 * The grpc-js pieces of one call's options and the signal that cancels it; throws for bad
 * metadata, an aborted signal, or a `timeoutMs` not above 0 (the same rule as every transport:
 * DEADLINE_EXCEEDED at once, nothing sent).
 */
function prepare(
  site: CallSite,
  options: CallOptions | undefined,
): [GrpcClient, GrpcMetadata, GrpcCallOptions, AbortSignal | undefined] {
  const client = site.grpcClient;
  if (client instanceof NearwireError) throw client;
  if (options === undefined) return [client, new GrpcMetadata(), NO_OPTIONS, undefined];
  if (options.signal?.aborted === true) {
    throw new NearwireError(Code.Canceled, "call cancelled before it started", {
      cause: options.signal.reason,
    });
  }
  const timeoutMs = options.timeoutMs;
  if (timeoutMs !== undefined && !(timeoutMs > 0)) throw timeoutError(timeoutMs);
  const metadata =
    options.metadata === undefined ? new GrpcMetadata() : toGrpcMetadata(options.metadata);
  if (timeoutMs === undefined) return [client, metadata, NO_OPTIONS, options.signal];
  if (timeoutMs > GRPC_MAX_TIMEOUT_MS) {
    // Capped at 2^32 − 1 ms, as on every transport (PROTOCOL.md §5.5).
    const capped = Math.min(Math.ceil(timeoutMs), 0xffffffff);
    return [client, metadata, NO_OPTIONS, longDeadline(capped, options.signal)];
  }
  return [client, metadata, { deadline: Date.now() + timeoutMs }, options.signal];
}

/** A signal that aborts with DEADLINE_EXCEEDED after `timeoutMs` (any length) or with `user`. */
function longDeadline(timeoutMs: number, user: AbortSignal | undefined): AbortSignal {
  const ac = new AbortController();
  const due = Date.now() + timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const left = due - Date.now();
    if (left <= 0) {
      ac.abort(new NearwireError(Code.DeadlineExceeded, `deadline of ${timeoutMs} ms exceeded`));
      return;
    }
    timer = setTimeout(arm, Math.min(left, 0x7fffffff));
  };
  arm();
  const signal = user === undefined ? ac.signal : AbortSignal.any([user, ac.signal]);
  longDeadlineTimers.set(signal, () => clearTimeout(timer));
  return signal;
}

/**
 * Cancels a call whose request side may still be open. grpc-js's `cancel()` closes the HTTP/2
 * stream with Node's `Http2Stream.close(CANCEL)`, which first ends the writable side (an
 * END_STREAM frame) and sends RST_STREAM in a later write: the server reads a clean end of the
 * request stream first, so its handler can finish normally without ever seeing the cancel
 * (grpc/grpc-node#2583). Destroying the HTTP/2 stream with an AbortError sends RST_STREAM(CANCEL)
 * alone; `cancel()` then settles the call (its own close is skipped: the stream is destroyed).
 * The HTTP/2 stream is found through grpc-js internals (checked on 1.14.7); when they change,
 * this falls back to a plain `cancel()`.
 */
function cancelCall(call: { cancel(): void }): void {
  for (const stream of http2StreamsOf(call)) {
    if (!stream.destroyed) stream.destroy(abortError());
  }
  call.cancel();
}

interface CallChain {
  call?: CallChain;
  nextCall?: CallChain;
  child?: CallChain;
  underlyingCalls?: ({ call?: CallChain } | undefined)[];
  http2Stream?: Http2Stream;
}

/** The HTTP/2 streams under a grpc-js client call (interceptor, resolving, retry, LB, subchannel). */
function http2StreamsOf(call: unknown): Http2Stream[] {
  const streams: Http2Stream[] = [];
  const visit = (node: CallChain | undefined, depth: number): void => {
    if (node === undefined || node === null || typeof node !== "object" || depth > 8) return;
    if (node.http2Stream !== undefined) {
      streams.push(node.http2Stream);
      return;
    }
    visit(node.call ?? node.nextCall ?? node.child, depth + 1);
    if (Array.isArray(node.underlyingCalls)) {
      for (const u of node.underlyingCalls) visit(u?.call, depth + 1);
    }
  };
  visit((call as CallChain).call, 0);
  return streams;
}

let cachedAbortError: Error | undefined;

/**
 * An instance of Node's internal AbortError: `Http2Stream.destroy(err)` sends RST_STREAM(CANCEL)
 * only for that class (other errors send INTERNAL_ERROR). `addAbortSignal` makes one.
 */
function abortError(): Error {
  if (cachedAbortError === undefined) {
    const probe = new Readable({ read() {} });
    probe.on("error", noop);
    addAbortSignal(AbortSignal.abort(), probe);
    cachedAbortError = probe.errored ?? new Error("aborted");
  }
  return cachedAbortError;
}

/** Cancels `call` when `signal` aborts; returns the detach function (or undefined). */
function attachSignal(
  signal: AbortSignal | undefined,
  call: { cancel(): void },
): (() => void) | undefined {
  if (signal === undefined) return undefined;
  const onAbort = () => cancelCall(call);
  signal.addEventListener("abort", onAbort, { once: true });
  return () => {
    signal.removeEventListener("abort", onAbort);
    longDeadlineTimers.get(signal)?.();
  };
}

function unaryCall(
  site: CallSite,
  m: BoundMethod,
  request: unknown,
  options: CallOptions | undefined,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const [client, metadata, callOptions, signal] = prepare(site, options);
    let detach: (() => void) | undefined;
    const call = client.makeUnaryRequest(
      m.path,
      m.serialize,
      m.deserialize,
      request,
      metadata,
      callOptions,
      (err: ServiceError | null, value?: unknown) => {
        site.calls.delete(call);
        detach?.();
        if (err !== null) reject(withServerCodec(site.mapError(err, signal), m.codec));
        else if (value instanceof Undecodable) reject(value.error);
        else resolve(value);
      },
    );
    site.calls.add(call);
    detach = attachSignal(signal, call);
  });
}

function noop(): void {}

async function* serverStreamCall(
  site: CallSite,
  m: BoundMethod,
  request: unknown,
  options: CallOptions | undefined,
): AsyncGenerator<unknown, void, undefined> {
  const [client, metadata, callOptions, signal] = prepare(site, options);
  const call = client.makeServerStreamRequest(
    m.path,
    m.serialize,
    m.deserialize,
    request,
    metadata,
    callOptions,
  );
  yield* readAll(site, call, signal, m.codec);
}

/**
 * Yields a call's responses. grpc-js's Readable asks HTTP/2 for the next message only when the
 * consumer pulls, so a slow consumer pushes back on the server. Leaving early cancels the call.
 */
async function* readAll(
  site: CallSite,
  call: AsyncIterable<unknown> & { cancel(): void; on(event: "error", fn: () => void): unknown },
  signal: AbortSignal | undefined,
  codec: string,
): AsyncGenerator<unknown, void, undefined> {
  call.on("error", noop);
  site.calls.add(call);
  const detach = attachSignal(signal, call);
  let ended = false;
  try {
    for await (const message of call) {
      if (message instanceof Undecodable) throw message.error;
      yield message;
    }
    ended = true;
  } catch (err) {
    if (err instanceof NearwireError && err.reason === "decode-failed") throw err;
    ended = true;
    throw withServerCodec(site.mapError(err, signal), codec);
  } finally {
    site.calls.delete(call);
    detach?.();
    if (!ended) cancelCall(call);
  }
}

function clientStreamCall(
  site: CallSite,
  m: BoundMethod,
  requests: Source,
  options: CallOptions | undefined,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const [client, metadata, callOptions, signal] = prepare(site, options);
    let detach: (() => void) | undefined;
    let sourceError: NearwireError | undefined;
    const call = client.makeClientStreamRequest(
      m.path,
      m.serialize,
      m.deserialize,
      metadata,
      callOptions,
      (err: ServiceError | null, value?: unknown) => {
        site.calls.delete(call);
        detach?.();
        if (err !== null)
          reject(sourceError ?? withServerCodec(site.mapError(err, signal), m.codec));
        else if (value instanceof Undecodable) reject(value.error);
        else resolve(value);
      },
    );
    site.calls.add(call);
    detach = attachSignal(signal, call);
    writeAll(call, requests).catch((err: unknown) => {
      sourceError = NearwireError.from(err);
      cancelCall(call);
    });
  });
}

async function* bidiCall(
  site: CallSite,
  m: BoundMethod,
  requests: Source,
  options: CallOptions | undefined,
): AsyncGenerator<unknown, void, undefined> {
  const [client, metadata, callOptions, signal] = prepare(site, options);
  const call = client.makeBidiStreamRequest(
    m.path,
    m.serialize,
    m.deserialize,
    metadata,
    callOptions,
  );
  let sourceError: NearwireError | undefined;
  writeAll(call, requests).catch((err: unknown) => {
    sourceError = NearwireError.from(err);
    cancelCall(call);
  });
  try {
    yield* readAll(site, call, signal, m.codec);
  } catch (err) {
    throw sourceError ?? err;
  }
}

type WritableCall = ClientWritableStream<unknown> | ClientDuplexStream<unknown, unknown>;

/**
 * Writes the request stream, waiting for 'drain' whenever grpc-js's buffer is full (HTTP/2 flow
 * control pushes back through it), then half-closes. Stops when the call has ended.
 */
async function writeAll(call: WritableCall, requests: Source): Promise<void> {
  let ended = false;
  const onEnd = () => {
    ended = true;
  };
  call.once("status", onEnd);
  try {
    for await (const request of requests) {
      if (ended) return;
      if (!call.write(request)) await drained(call);
    }
    if (!ended) call.end();
  } finally {
    call.off("status", onEnd);
  }
}

/** Resolves on 'drain', or when the call ends (nothing will drain then). */
function drained(call: WritableCall): Promise<void> {
  return untilAny(call, ["drain", "status", "close"]);
}
