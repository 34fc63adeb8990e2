/**
 * OpenTelemetry tracing of nearwire calls: one interceptor for both sides. A client opens a
 * CLIENT span and sends its W3C trace context in the request metadata (`traceparent`,
 * `tracestate`); a server continues that trace with a SERVER span and runs its handler inside it,
 * so the handler's own calls are its children.
 *
 * @see https://opentelemetry.io/docs/specs/semconv/rpc/rpc-spans/
 * @see https://www.w3.org/TR/trace-context/
 */
import { createRequire } from "node:module";
import type { CallRequest, CallResponse, Interceptor } from "@nearwire/core";
import {
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapPropagator,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { codeOf, isSpanError } from "./call-status.js";
import { type Failure, tracedStream } from "./traced-stream.js";

/** Options of {@link otelInterceptor}. */
export interface OtelInterceptorOptions {
  /**
   * The tracer that makes the spans. Default: the global tracer provider's
   * `trace.getTracer("@nearwire/otel", version)`, looked up when a span starts, so a provider
   * registered after the interceptor was made is used.
   */
  tracer?: Tracer;
  /**
   * Writes the trace context into a client's request metadata and reads it on the server.
   * Default: the global propagator (`propagation` of `@opentelemetry/api`, set by the SDK; W3C
   * trace context with the Node SDK's defaults). Without any registered propagator nothing is
   * sent and each server span starts its own trace.
   */
  propagator?: TextMapPropagator;
  /**
   * The `rpc.system` attribute of every span. Default `"nearwire"`: the interceptor cannot see
   * the transport; on `@nearwire/grpc-uds`, whose wire is gRPC, pass `"grpc"`.
   */
  rpcSystem?: string;
}

const VERSION = (createRequire(import.meta.url)("../package.json") as { version: string }).version;

/**
 * An interceptor that traces every call of the services it is set on, on the client
 * (`connection.client(S, { interceptors })`) and on the server
 * (`server.addService(S, impl, { interceptors })`).
 *
 * Each call gets one span named `package.Service/Method` with `rpc.system`, `rpc.service`,
 * `rpc.method` and, when it ends, `rpc.grpc.status_code`. A unary response ends the span when it
 * arrives; a streamed one when the stream ends, fails, or its consumer stops early (CANCELLED).
 * Status ERROR (with the error's message and an `exception` event) follows the semantic
 * conventions for gRPC: on a client every non-OK code, on a server only UNKNOWN,
 * DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE and DATA_LOSS.
 *
 * @example
 * ```ts
 * const interceptors = [otelInterceptor()];
 * // server.addService(Greeter, impl, { codec: jsonCodec, interceptors })
 * // connection.client(Greeter, { codec: jsonCodec, interceptors })
 * ```
 */
export function otelInterceptor(options: OtelInterceptorOptions = {}): Interceptor {
  const tracer = options.tracer ?? trace.getTracer("@nearwire/otel", VERSION);
  const propagator: TextMapPropagator = options.propagator ?? propagation;
  const rpcSystem = options.rpcSystem ?? "nearwire";

  return (next) => async (req) => {
    const service = req.service;
    const method = req.path.slice(req.path.lastIndexOf("/") + 1);
    const parent =
      req.side === "server"
        ? propagator.extract(context.active(), req.metadata, metadataGetter)
        : context.active();
    const span = tracer.startSpan(
      `${service}/${method}`,
      {
        kind: req.side === "server" ? SpanKind.SERVER : SpanKind.CLIENT,
        attributes: {
          "rpc.system": rpcSystem,
          "rpc.service": service,
          "rpc.method": method,
        },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    if (req.side === "client") propagator.inject(active, req.metadata, metadataSetter);
    const run = <T>(step: () => Promise<T>) => context.with(active, step);

    let res: CallResponse;
    try {
      res = await run(() => next(req));
    } catch (error) {
      endSpan(span, req.side, { error });
      throw error;
    }
    if (!res.stream) {
      endSpan(span, req.side, undefined);
      return res;
    }
    res.message = tracedStream(res.message, (failure) => endSpan(span, req.side, failure), run);
    return res;
  };
}

/** Ends `span` with the call's outcome: OK without a `failure`. */
function endSpan(span: Span, side: CallRequest["side"], failure: Failure): void {
  if (failure === undefined) {
    span.setAttribute("rpc.grpc.status_code", 0);
    span.end();
    return;
  }
  const { error } = failure;
  const code = codeOf(error);
  span.setAttribute("rpc.grpc.status_code", code);
  if (isSpanError(side, code)) {
    const message = error instanceof Error ? error.message : String(error);
    span.recordException(error instanceof Error ? error : message);
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  }
  span.end();
}

const metadataGetter = {
  get: (carrier: Record<string, string>, key: string) => carrier[key],
  keys: (carrier: Record<string, string>) => Object.keys(carrier),
};

const metadataSetter = {
  set: (carrier: Record<string, string>, key: string, value: string) => {
    carrier[key] = value;
  },
};
