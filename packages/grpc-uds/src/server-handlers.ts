import type {
  MethodDefinition as GrpcMethodDefinition,
  ServerDuplexStream,
  ServerReadableStream,
  ServerUnaryCall,
  ServerWritableStream,
  sendUnaryData,
  UntypedHandleCall,
} from "@grpc/grpc-js";
import { Code, type MessageCodec, type MethodDefinition, NearwireError } from "@nearwire/core";
import type { ServedMethod } from "@nearwire/core/transport-kit";
import type { DrainGate } from "./drain-gate.js";
import { toGrpcMetadata, toGrpcStatus } from "./grpc-metadata.js";
import { GrpcHandlerContext } from "./handler-context.js";
import { decodeError, identity, serializerFor } from "./serialize.js";
import { untilAny } from "./until-event.js";

// biome-ignore lint/suspicious/noExplicitAny: grpc-js handler and message types are untyped here.
type AnyFn = (...args: any[]) => any;

/** grpc-js service definition plus implementation for one nearwire service, built once. */
export interface GrpcServiceBinding {
  definition: Record<string, GrpcMethodDefinition<unknown, unknown>>;
  implementation: Record<string, UntypedHandleCall>;
}

/**
 * Builds the grpc-js method definitions and handlers of a service once, when it is added, from
 * the methods core's `bindHandlers` bound (the same checks and errors as every transport).
 * Requests are not decoded by grpc-js (its deserializer failure is INTERNAL): the raw bytes reach
 * the handler wrapper, which decodes them and answers INVALID_ARGUMENT when the codec refuses.
 */
export function grpcServiceBinding(
  methods: readonly ServedMethod[],
  gate: DrainGate,
): GrpcServiceBinding {
  const definition: GrpcServiceBinding["definition"] = {};
  const implementation: GrpcServiceBinding["implementation"] = {};
  for (const { bound, impl } of methods) {
    const { name, path, kind, input, output, codec } = bound;
    const requestStream = kind === "client_streaming" || kind === "bidi_streaming";
    const responseStream = kind === "server_streaming" || kind === "bidi_streaming";
    definition[name] = {
      path,
      requestStream,
      responseStream,
      requestSerialize: serializerFor(input),
      requestDeserialize: identity,
      responseSerialize: serializerFor(output),
      responseDeserialize: identity,
      originalName: name,
    };
    implementation[name] = wrapHandler(kind, path, impl as AnyFn, input, codec, gate);
  }
  return { definition, implementation };
}

function wrapHandler(
  kind: MethodDefinition["kind"],
  path: string,
  handler: AnyFn,
  input: MessageCodec<unknown>,
  codecName: string,
  gate: DrainGate,
): UntypedHandleCall {
  // Every call counts on the gate from its context's creation until its status is decided; one
  // that arrives while the server drains is answered UNAVAILABLE `server-closing` at once.
  switch (kind) {
    case "unary":
      return (call: ServerUnaryCall<Buffer, unknown>, callback: sendUnaryData<unknown>) => {
        const ctx = new GrpcHandlerContext(path, call, gate);
        if (gate.draining) {
          fail(ctx, callback, gate.refusal());
          return;
        }
        let request: unknown;
        try {
          request = input.decode(call.request);
        } catch (err) {
          fail(ctx, callback, decodeError(err, codecName));
          return;
        }
        respond(ctx, callback, () => handler(request, ctx));
      };
    case "client_streaming":
      return (call: ServerReadableStream<Buffer, unknown>, callback: sendUnaryData<unknown>) => {
        const ctx = new GrpcHandlerContext(path, call, gate);
        if (gate.draining) {
          fail(ctx, callback, gate.refusal());
          return;
        }
        const onDecodeError = (err: NearwireError) => fail(ctx, callback, err);
        respond(ctx, callback, () =>
          handler(decodeStream(call, input, codecName, ctx, onDecodeError), ctx),
        );
      };
    case "server_streaming":
      return (call: ServerWritableStream<Buffer, unknown>) => {
        const ctx = new GrpcHandlerContext(path, call, gate);
        if (gate.draining) {
          endWithError(ctx, call, gate.refusal());
          return;
        }
        let request: unknown;
        try {
          request = input.decode(call.request);
        } catch (err) {
          endWithError(ctx, call, decodeError(err, codecName));
          return;
        }
        void writeAll(ctx, call, () => handler(request, ctx));
      };
    case "bidi_streaming":
      return (call: ServerDuplexStream<Buffer, unknown>) => {
        const ctx = new GrpcHandlerContext(path, call, gate);
        if (gate.draining) {
          endWithError(ctx, call, gate.refusal());
          return;
        }
        const onDecodeError = (err: NearwireError) => endWithError(ctx, call, err);
        void writeAll(ctx, call, () =>
          handler(decodeStream(call, input, codecName, ctx, onDecodeError), ctx),
        );
      };
  }
}

/** Runs a handler returning one value (or a promise of it) and sends the status. */
function respond(
  ctx: GrpcHandlerContext,
  callback: sendUnaryData<unknown>,
  run: () => unknown,
): void {
  let result: unknown;
  try {
    result = run();
  } catch (err) {
    fail(ctx, callback, err);
    return;
  }
  if (result !== null && typeof (result as Promise<unknown>)?.then === "function") {
    (result as Promise<unknown>).then(
      (value) => succeed(ctx, callback, value),
      (err: unknown) => fail(ctx, callback, err),
    );
  } else {
    succeed(ctx, callback, result);
  }
}

function succeed(ctx: GrpcHandlerContext, callback: sendUnaryData<unknown>, value: unknown): void {
  if (ctx.finished) return;
  ctx.finish();
  const trailers = ctx.touchedTrailers;
  if (trailers === undefined) {
    callback(null, value);
    return;
  }
  try {
    callback(null, value, toGrpcMetadata(trailers));
  } catch (err) {
    callback(toGrpcStatus(err));
  }
}

function fail(ctx: GrpcHandlerContext, callback: sendUnaryData<unknown>, err: unknown): void {
  if (ctx.finished) return;
  ctx.finish();
  callback(toGrpcStatus(err, ctx.touchedTrailers));
}

type WritableCall = ServerWritableStream<unknown, unknown> | ServerDuplexStream<unknown, unknown>;

/**
 * Writes what a streaming handler yields, waiting for 'drain' whenever grpc-js's write buffer is
 * full, and stops as soon as the call is cancelled (the generator's `finally` then runs).
 */
async function writeAll(
  ctx: GrpcHandlerContext,
  call: WritableCall,
  run: () => AsyncIterable<unknown>,
): Promise<void> {
  try {
    for await (const item of run()) {
      if (ctx.finished || call.cancelled) break;
      if (!call.write(item)) await drained(call);
    }
  } catch (err) {
    endWithError(ctx, call, err);
    return;
  }
  if (ctx.finished) return;
  ctx.finish();
  if (call.cancelled) return;
  const trailers = ctx.touchedTrailers;
  try {
    call.end(trailers === undefined ? undefined : toGrpcMetadata(trailers));
  } catch (err) {
    call.emit("error", toGrpcStatus(err));
  }
}

function endWithError(ctx: GrpcHandlerContext, call: WritableCall, err: unknown): void {
  if (ctx.finished) return;
  ctx.finish();
  if (call.cancelled) return;
  call.emit("error", toGrpcStatus(err, ctx.touchedTrailers));
}

/** Resolves on 'drain', or when the call closes or is cancelled (nothing will drain then). */
function drained(call: WritableCall): Promise<void> {
  return untilAny(call, ["drain", "close", "cancelled"]);
}

interface ReadableIterable {
  iterator(options: { destroyOnReturn: boolean }): AsyncIterator<Buffer>;
}

/**
 * The request stream a handler iterates: grpc-js's Readable (which asks HTTP/2 for the next
 * message only when the handler pulls, so a slow handler pushes back on the client), decoded.
 * A message the codec refuses ends the call with INVALID_ARGUMENT at once (`onDecodeError`) and
 * is thrown into the handler; a cancelled call throws CANCELLED or DEADLINE_EXCEEDED.
 */
async function* decodeStream(
  call: ServerReadableStream<Buffer, unknown> | ServerDuplexStream<Buffer, unknown>,
  codec: MessageCodec<unknown>,
  codecName: string,
  ctx: GrpcHandlerContext,
  onDecodeError: (err: NearwireError) => void,
): AsyncGenerator<unknown, void, undefined> {
  // destroyOnReturn: false: the default iterator destroys the Duplex when the request stream
  // ends, which drops responses still queued for writing.
  const iterator = (call as unknown as ReadableIterable).iterator({ destroyOnReturn: false });
  while (true) {
    let next: IteratorResult<Buffer>;
    try {
      next = await iterator.next();
    } catch (err) {
      throw call.cancelled ? ctx.cancelError() : NearwireError.from(err, Code.Unavailable);
    }
    if (next.done === true) {
      // grpc-js destroys the request stream of a cancelled call, which ends the iterator quietly:
      // the handler must not take that for the client's end of input.
      if (call.cancelled) throw ctx.cancelError();
      return;
    }
    let value: unknown;
    try {
      value = codec.decode(next.value);
    } catch (err) {
      const error = decodeError(err, codecName);
      onDecodeError(error);
      await iterator.return?.();
      throw error;
    }
    yield value;
  }
}
