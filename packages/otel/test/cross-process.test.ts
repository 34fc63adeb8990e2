// A client span in this process and the server span in a child process are one trace: the
// traceparent travels in the request metadata over each transport, and the handler's own calls
// are children of its server span.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import {
  createTmpResources,
  type ServerProcess,
  startServerProcess,
  type TmpResources,
} from "@nearwire/conformance";
import { type ClientConnection, Code, jsonCodec, NearwireError } from "@nearwire/core";
import { context, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { otelInterceptor } from "../src/index.js";
import { type SpanRecord, Spans, Traced, transports } from "./trace-service.js";

const serverFile = fileURLToPath(new URL("span-server.ts", import.meta.url));

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer("cross-process.test");

/** This process's finished client spans named `test.Traced/<method>`, oldest first. */
function clientSpans(method: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((s) => s.name === `test.Traced/${method}`);
}

/** The one client span of `method` finished since the test began. */
function clientSpan(method: string): ReadableSpan {
  const spans = clientSpans(method);
  assert.equal(spans.length, 1, `one client span of ${method}`);
  return spans[0] as ReadableSpan;
}

for (const [name, rpcSystem] of [
  ["uds", "nearwire"],
  ["grpc-uds", "grpc"],
  ["shm-ring", "nearwire"],
] as const) {
  describe(`client and server spans across processes (${name})`, () => {
    let tmp: TmpResources;
    let child: ServerProcess;
    let connection: ClientConnection;

    before(async () => {
      tmp = createTmpResources();
      const address = tmp.socketPath();
      child = await startServerProcess(serverFile, [name, address, rpcSystem]);
      const transport = transports[name];
      assert.ok(transport);
      connection = await transport(address).connect();
    });

    after(async () => {
      await connection?.close();
      await child?.stop();
      assert.deepEqual(await tmp.cleanup(), [], "nothing leaked");
    });

    const client = () =>
      connection.client(Traced, {
        codec: jsonCodec,
        interceptors: [
          otelInterceptor({ tracer, propagator: new W3CTraceContextPropagator(), rpcSystem }),
        ],
      });

    /** The server's finished spans, once at least `count` of them named `test.Traced/<method>` are. */
    async function serverSpans(method: string, count: number): Promise<SpanRecord[]> {
      const report = connection.client(Spans, { codec: jsonCodec }).report;
      for (let i = 0; ; i++) {
        const { spans } = await report({}, { timeoutMs: 2000 });
        if (spans.filter((s) => s.name === `test.Traced/${method}`).length >= count) return spans;
        assert.ok(i < 100, `server recorded ${count} span(s) of ${method}`);
        await sleep(20);
      }
    }

    /** The one server span that is the child of `parent`. */
    function childOf(spans: SpanRecord[], parent: ReadableSpan): SpanRecord {
      const found = spans.filter((s) => s.parentSpanId === parent.spanContext().spanId);
      assert.equal(found.length, 1, `one server span under ${parent.name}`);
      const span = found[0] as SpanRecord;
      assert.equal(span.traceId, parent.spanContext().traceId, "same trace");
      return span;
    }

    it("unary: the server span is the client span's child, with the rpc attributes", async () => {
      exporter.reset();
      const reply = await tracer.startActiveSpan("caller", async (caller) => {
        const r = await client().say({ text: "hi" });
        caller.end();
        return r;
      });
      assert.deepEqual(reply, { text: "hi" });

      const call = clientSpan("say");
      const caller = exporter.getFinishedSpans().find((s) => s.name === "caller");
      assert.ok(caller);
      assert.equal(call.parentSpanContext?.spanId, caller.spanContext().spanId, "active parent");
      assert.equal(call.kind, SpanKind.CLIENT);
      assert.deepEqual(call.attributes, {
        "rpc.system": rpcSystem,
        "rpc.service": "test.Traced",
        "rpc.method": "say",
        "rpc.grpc.status_code": 0,
      });
      assert.equal(call.status.code, SpanStatusCode.UNSET);

      const served = childOf(await serverSpans("say", 1), call);
      assert.equal(served.name, "test.Traced/say");
      assert.equal(served.kind, SpanKind.SERVER);
      assert.deepEqual(served.attributes, call.attributes);
      assert.equal(served.status.code, SpanStatusCode.UNSET);
    });

    it("a handler's own calls are children of its server span", async () => {
      exporter.reset();
      assert.deepEqual(await client().relay({ text: "x" }), { text: "relayed x" });
      const spans = await serverSpans("relay", 1);
      const relay = childOf(spans, clientSpan("relay"));
      const inner = spans.filter((s) => s.parentSpanId === relay.spanId);
      assert.deepEqual(
        inner.map((s) => [s.name, s.kind]),
        [["test.Traced/say", SpanKind.CLIENT]],
      );
      const innerServed = spans.find((s) => s.parentSpanId === inner[0]?.spanId);
      assert.ok(innerServed, "the inner call's server span");
      assert.equal(innerServed.kind, SpanKind.SERVER);
      assert.equal(innerServed.traceId, relay.traceId);
    });

    it("server streaming: spans end with the stream; the generator runs in the span", async () => {
      exporter.reset();
      const got: number[] = [];
      for await (const { n } of client().count({ n: 3 })) got.push(n);
      assert.deepEqual(got, [0, 1, 2]);

      const call = clientSpan("count");
      assert.equal(call.attributes["rpc.grpc.status_code"], 0);
      assert.equal(call.status.code, SpanStatusCode.UNSET);
      const spans = await serverSpans("count", 1);
      const served = childOf(spans, call);
      assert.equal(served.kind, SpanKind.SERVER);
      assert.equal(served.attributes["rpc.grpc.status_code"], 0);
      const inner = spans.filter((s) => s.parentSpanId === served.spanId);
      assert.equal(inner.length, 3, "each say the generator made is its child");
      for (const s of inner) assert.equal(s.kind, SpanKind.CLIENT);
    });

    it("NOT_FOUND: an error on the client, not on the server", async () => {
      exporter.reset();
      await assert.rejects(
        client().fail({ text: "x" }),
        (err) => err instanceof NearwireError && err.code === Code.NotFound,
      );
      const call = clientSpan("fail");
      assert.equal(call.attributes["rpc.grpc.status_code"], Code.NotFound);
      assert.equal(call.status.code, SpanStatusCode.ERROR);
      assert.equal(call.status.message, "no such text");
      assert.deepEqual(
        call.events.map((e) => e.name),
        ["exception"],
      );
      const served = childOf(await serverSpans("fail", 1), call);
      assert.equal(served.attributes["rpc.grpc.status_code"], Code.NotFound);
      assert.equal(served.status.code, SpanStatusCode.UNSET);
      assert.deepEqual(served.events, []);
    });

    it("a handler's plain Error: UNKNOWN, an error on both sides", async () => {
      exporter.reset();
      await assert.rejects(
        client().crash({ text: "x" }),
        (err) => err instanceof NearwireError && err.code === Code.Unknown,
      );
      const call = clientSpan("crash");
      assert.equal(call.attributes["rpc.grpc.status_code"], Code.Unknown);
      assert.equal(call.status.code, SpanStatusCode.ERROR);
      const served = childOf(await serverSpans("crash", 1), call);
      assert.equal(served.attributes["rpc.grpc.status_code"], Code.Unknown);
      assert.equal(served.status.code, SpanStatusCode.ERROR);
      assert.equal(served.status.message, "handler bug");
      assert.deepEqual(served.events, ["exception"]);
    });

    it("a consumer that stops early ends both spans CANCELLED", async () => {
      exporter.reset();
      for await (const { n } of client().hang({ n: 0 })) {
        assert.equal(n, 0);
        break;
      }
      const call = clientSpan("hang");
      assert.equal(call.attributes["rpc.grpc.status_code"], Code.Canceled);
      assert.equal(call.status.code, SpanStatusCode.ERROR);
      const served = childOf(await serverSpans("hang", 1), call);
      assert.equal(served.attributes["rpc.grpc.status_code"], Code.Canceled);
      assert.equal(served.status.code, SpanStatusCode.UNSET, "CANCELLED is not a server error");
    });
  });
}
