/** createUdsTransport: the RPC engine over uds channels. */
import {
  createRpcTransport,
  DEFAULT_MAX_MESSAGE_BYTES,
  type RpcOptions,
  type Transport,
} from "@nearwire/core";
import { ENVELOPE_HEADROOM_BYTES } from "@nearwire/core/protocol";
import { createUdsChannelProvider, type UdsChannelOptions } from "./uds-channel-provider.js";

/** Options of {@link createUdsTransport}: the channel's options plus the RPC engine's. */
export interface UdsTransportOptions
  extends Omit<UdsChannelOptions, "maxFrameBytes" | "batches">,
    RpcOptions {}

/**
 * The nearwire RPC transport over a stream socket: a Unix domain socket path, a Linux abstract
 * name or TCP (see `parseAddress` of `@nearwire/socket`). Frames follow PROTOCOL.md; the frame
 * limit is set to `maxMessageBytes` plus room for the envelope. `server.close()` while
 * `listen()` is pending wins (core's `guardListen`): the listen rejects CANCELLED `server-closing`.
 *
 * @example
 * ```ts
 * import { defineService, jsonCodec, messageType, unary } from "@nearwire/core";
 * import { createUdsTransport } from "@nearwire/uds";
 *
 * const Greeter = defineService("example.Greeter", {
 *   say: unary(messageType<{ name: string }>("Hello"), messageType<{ text: string }>("Reply")),
 * });
 * const transport = createUdsTransport({ address: "/tmp/greeter.sock" }); // or "@name", "tcp:…"
 *
 * // One process serves ...
 * const server = transport.createServer();
 * const say = ({ name }: { name: string }) => ({ text: `hi ${name}` });
 * server.addService(Greeter, { say }, { codec: jsonCodec });
 * await server.listen();
 *
 * // ... another calls.
 * await using connection = await transport.connect();
 * const greeter = connection.client(Greeter, { codec: jsonCodec });
 * console.log((await greeter.say({ name: "Ada" }, { timeoutMs: 1000 })).text); // "hi Ada"
 * ```
 */
export function createUdsTransport(options: UdsTransportOptions): Transport {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const provider = createUdsChannelProvider({
    ...options,
    maxFrameBytes: maxMessageBytes + ENVELOPE_HEADROOM_BYTES,
    batches: options.batches ?? true,
  });
  return createRpcTransport(provider, { ...options, maxMessageBytes });
}
