/** The services and transports of the cross-process tracing test, shared by both processes. */
import { defineService, messageType, serverStreaming, type Transport, unary } from "@nearwire/core";
import { createGrpcTransport } from "@nearwire/grpc-uds";
import { createShmRingTransport } from "@nearwire/shm-ring";
import { createUdsTransport } from "@nearwire/uds";

const Text = messageType<{ text: string }>("test.Text");
const Count = messageType<{ n: number }>("test.Count");

/**
 * Traced on both sides. `say` echoes; `count` streams `n` numbers and calls `say` on its own
 * server before each one (so its handler's calls show up as children of its span); `relay`
 * calls `say` likewise; `fail` throws NOT_FOUND; `crash` throws a plain Error (UNKNOWN); `hang`
 * sends one message and then waits for the call to be cancelled.
 */
export const Traced = defineService("test.Traced", {
  say: unary(Text, Text),
  relay: unary(Text, Text),
  count: serverStreaming(Count, Count),
  fail: unary(Text, Text),
  crash: unary(Text, Text),
  hang: serverStreaming(Count, Count),
});

/** A finished span as the server process reports it. */
export interface SpanRecord {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
  events: string[];
}

/** Not traced: hands the test the server process's finished spans. */
export const Spans = defineService("test.Spans", {
  report: unary(
    messageType<Record<string, never>>("test.Empty"),
    messageType<{ spans: SpanRecord[] }>("test.SpanList"),
  ),
});

// `crash` throws on purpose: its stack on stderr would only hide real failures.
const onHandlerError = () => {};

/** The transports the test runs on, by name. */
export const transports: Record<string, (address: string) => Transport> = {
  uds: (address) => createUdsTransport({ address, onHandlerError }),
  "grpc-uds": (address) => createGrpcTransport({ address, onHandlerError }),
  "shm-ring": (address) => createShmRingTransport({ address, wait: "park", onHandlerError }),
};
