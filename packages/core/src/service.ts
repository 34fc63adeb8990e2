/** Service definitions: defineService, the four call kinds, method paths. */
import type { MessageType } from "./codec.js";

/** The four call kinds, named as gRPC names them. */
export type MethodKind = "unary" | "server_streaming" | "client_streaming" | "bidi_streaming";

/** One method of a service definition. */
export interface MethodDefinition<I = unknown, O = unknown, K extends MethodKind = MethodKind> {
  readonly kind: K;
  readonly input: MessageType<I>;
  readonly output: MessageType<O>;
}

/** A service: its full name (`package.Service`) and its methods. */
export interface ServiceDefinition<
  M extends Record<string, MethodDefinition> = Record<string, MethodDefinition>,
> {
  /** Full name, `package.Service`; a method's wire path is `/package.Service/Method`. */
  readonly typeName: string;
  readonly methods: M;
}

/**
 * Defines a service; the codec is chosen later, when it is served or a client is made.
 *
 * @example
 * ```ts
 * import { defineService, messageType, serverStreaming, unary } from "@nearwire/core";
 *
 * const Point = messageType<{ x: number; y: number }>("geo.Point");
 * export const Geo = defineService("geo.Geo", {
 *   nearest: unary(Point, Point), // called on the wire as /geo.Geo/nearest
 *   walk: serverStreaming(Point, Point), // also clientStreaming, bidiStreaming
 * });
 * // Serve it: server.addService(Geo, { nearest, walk }, { codec: jsonCodec })
 * // Call it:  connection.client(Geo, { codec: jsonCodec }).nearest({ x: 1, y: 2 })
 * ```
 */
export function defineService<M extends Record<string, MethodDefinition>>(
  typeName: string,
  methods: M,
): ServiceDefinition<M> {
  if (!/^[A-Za-z_][\w.]*$/.test(typeName))
    throw new TypeError(`invalid service name "${typeName}"`);
  return { typeName, methods };
}

/** A unary method: one request, one response. */
export function unary<I, O>(
  input: MessageType<I>,
  output: MessageType<O>,
): MethodDefinition<I, O, "unary"> {
  return { kind: "unary", input, output };
}
/** A server-streaming method: one request, a stream of responses. */
export function serverStreaming<I, O>(
  input: MessageType<I>,
  output: MessageType<O>,
): MethodDefinition<I, O, "server_streaming"> {
  return { kind: "server_streaming", input, output };
}
/** A client-streaming method: a stream of requests, one response. */
export function clientStreaming<I, O>(
  input: MessageType<I>,
  output: MessageType<O>,
): MethodDefinition<I, O, "client_streaming"> {
  return { kind: "client_streaming", input, output };
}
/** A bidirectional-streaming method. */
export function bidiStreaming<I, O>(
  input: MessageType<I>,
  output: MessageType<O>,
): MethodDefinition<I, O, "bidi_streaming"> {
  return { kind: "bidi_streaming", input, output };
}

/** The wire path of a method: `/package.Service/Method`. */
export function methodPath(service: ServiceDefinition, methodName: string): string {
  return `/${service.typeName}/${methodName}`;
}
