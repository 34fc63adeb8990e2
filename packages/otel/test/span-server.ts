/**
 * The server process of the cross-process tracing test: serves {@link Traced} with the
 * interceptor on its defaults (the global tracer provider, propagator and context manager set
 * below) and {@link Spans}, untraced, to report what it recorded.
 *
 * Usage: `node --import tsx span-server.ts <transport> <address> <rpcSystem>`; prints `ready`.
 */
import { type Client, Code, jsonCodec, NearwireError } from "@nearwire/core";
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { otelInterceptor } from "../src/index.js";
import { type SpanRecord, Spans, Traced, transports } from "./trace-service.js";

const [kind = "uds", address = "", rpcSystem = "nearwire"] = process.argv.slice(2);
const factory = transports[kind];
if (factory === undefined) throw new Error(`unknown transport ${kind}`);

const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(
  new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
);
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const interceptors = [otelInterceptor({ rpcSystem })];
const transport = factory(address);
const server = transport.createServer();
// The handlers' own client, connected before `ready`: its calls are the handlers' children.
let self!: Client<typeof Traced>;

server.addService(
  Traced,
  {
    say: ({ text }) => ({ text }),
    relay: ({ text }) => self.say({ text: `relayed ${text}` }),
    async *count({ n }) {
      for (let i = 0; i < n; i++) {
        await self.say({ text: `count ${i}` });
        yield { n: i };
      }
    },
    fail: () => {
      throw new NearwireError(Code.NotFound, "no such text");
    },
    crash: () => {
      throw new Error("handler bug");
    },
    async *hang(_req, ctx) {
      yield { n: 0 };
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
      throw new NearwireError(Code.Canceled, "cancelled by the client");
    },
  },
  { codec: jsonCodec, interceptors },
);
server.addService(
  Spans,
  {
    report: () => ({
      spans: exporter.getFinishedSpans().map(
        (s): SpanRecord => ({
          name: s.name,
          kind: s.kind,
          traceId: s.spanContext().traceId,
          spanId: s.spanContext().spanId,
          parentSpanId: s.parentSpanContext?.spanId,
          attributes: { ...s.attributes },
          status: { ...s.status },
          events: s.events.map((e) => e.name),
        }),
      ),
    }),
  },
  { codec: jsonCodec },
);
await server.listen();
const connection = await transport.connect();
self = connection.client(Traced, { codec: jsonCodec, interceptors });
process.once("SIGTERM", () => {
  void connection.close().then(() => server.close({ graceMs: 500 }));
});
console.log("ready");
