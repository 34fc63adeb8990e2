import type { RpcOptions, Transport } from "@nearwire/core";
import { createRpcTransport } from "@nearwire/core";
import { maxFrameBytesFor } from "@nearwire/ring";
import type { ShmRingOptions } from "./shm-ring-options.js";
import { createShmRingChannelProvider } from "./shm-ring-provider.js";

/** Options of {@link createShmRingTransport}: the ring options plus the RPC engine's. */
export type ShmRingTransportOptions = ShmRingOptions & RpcOptions;

// Defined with the ring layout (@nearwire/ring), shared with @nearwire/worker; exported here too.
export { maxFrameBytesFor } from "@nearwire/ring";

/**
 * The shm-ring {@link Transport} (name `shm-ring`): core's RPC engine over
 * {@link createShmRingChannelProvider}. Handlers see payloads decoded from the ring; the
 * engine copies a payload first only when the codec decodes in place. `maxMessageBytes`
 * defaults to core's 4 MiB, as on uds and grpc-uds, for every ring size (a frame larger than
 * one record travels in fragments); `maxFrameBytes` defaults to `maxMessageBytes` + 64 KiB.
 * A message over the limit fails its call with RESOURCE_EXHAUSTED; the connection stays up.
 *
 * @example
 * ```ts
 * import { defineService, jsonCodec, messageType, unary } from "@nearwire/core";
 * import { createShmRingTransport } from "@nearwire/shm-ring";
 *
 * const Greeter = defineService("example.Greeter", {
 *   say: unary(messageType<{ name: string }>("Hello"), messageType<{ text: string }>("Reply")),
 * });
 * // The socket only sets up each connection; messages travel through shared-memory rings.
 * const transport = createShmRingTransport({ address: "/tmp/greeter.sock", wait: "adaptive" });
 *
 * const server = transport.createServer();
 * const say = ({ name }: { name: string }) => ({ text: `hi ${name}` });
 * server.addService(Greeter, { say }, { codec: jsonCodec });
 * await server.listen();
 *
 * // From another process on the same host:
 * await using connection = await transport.connect();
 * const greeter = connection.client(Greeter, { codec: jsonCodec });
 * console.log((await greeter.say({ name: "Ada" }, { timeoutMs: 1000 })).text); // "hi Ada"
 * ```
 */
export function createShmRingTransport(options: ShmRingTransportOptions): Transport {
  const provider = createShmRingChannelProvider({
    ...options,
    maxFrameBytes: options.maxFrameBytes ?? maxFrameBytesFor(options.maxMessageBytes),
    batches: options.batches ?? true,
  });
  // close() during listen() wins (createRpcTransport's guardListen).
  return createRpcTransport(provider, options);
}
