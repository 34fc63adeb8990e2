/** createMemoryTransport: the RPC engine over an in-process channel pair. */
import type { Channel, ChannelListener, ChannelProvider } from "../channel.js";
import { Code } from "../code.js";
import { NearwireError } from "../nearwire-error.js";
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  ENVELOPE_HEADROOM_BYTES,
  type RpcOptions,
} from "../rpc/rpc-server.js";
import { createRpcTransport } from "../rpc/rpc-transport.js";
import type { Transport } from "../transport.js";
import { memoryChannelPair } from "./memory-channel.js";

/** Options of {@link createMemoryTransport}. */
export interface MemoryTransportOptions extends RpcOptions {
  /** `send` reports backpressure when this many bytes wait for delivery. Default 1 MiB. */
  highWaterMarkBytes?: number;
}

/**
 * An in-process transport: the real RPC engine (call ids, deadlines, cancellation, stream
 * credit, limits) over a pair of in-memory channels, with no socket and no second process.
 * Use it to unit-test a service's handlers with the exact semantics of the socket and ring
 * transports, and to measure the engine's own cost (nearwire-bench's `engine` rows).
 *
 * One server may listen on a memory transport at a time; `connect()` joins it, and fails with
 * UNAVAILABLE while none listens. Frames are copied into slabs and delivered on a later turn
 * of the event loop, never inside the sender's call.
 *
 * ```ts
 * const transport = createMemoryTransport();
 * const server = transport.createServer().addService(Greeter, impl, { codec: jsonCodec });
 * await server.listen();
 * const conn = await transport.connect();
 * const greeter = conn.client(Greeter, { codec: jsonCodec });
 * ```
 */
export function createMemoryTransport(options: MemoryTransportOptions = {}): Transport {
  return createRpcTransport(new MemoryChannelProvider(options), options);
}

let nextAddress = 1;

class MemoryChannelProvider implements ChannelProvider {
  readonly name = "memory";
  private onChannel: ((channel: Channel) => void) | undefined;
  private readonly maxPayloadBytes: number;
  private readonly highWaterMarkBytes: number;
  private readonly batches: boolean;

  constructor(options: MemoryTransportOptions) {
    this.batches = options.batches ?? true;
    this.maxPayloadBytes =
      (options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES) + ENVELOPE_HEADROOM_BYTES;
    this.highWaterMarkBytes = options.highWaterMarkBytes ?? 1024 * 1024;
  }

  async listen(onChannel: (channel: Channel) => void): Promise<ChannelListener> {
    if (this.onChannel !== undefined)
      throw new NearwireError(
        Code.AlreadyExists,
        "a server already listens on this memory transport",
        {
          reason: "address-in-use",
        },
      );
    this.onChannel = onChannel;
    const address = `memory:${nextAddress++}`;
    return {
      address,
      close: async () => {
        if (this.onChannel === onChannel) this.onChannel = undefined;
      },
    };
  }

  async connect(): Promise<Channel> {
    const onChannel = this.onChannel;
    if (onChannel === undefined)
      throw new NearwireError(
        Code.Unavailable,
        "nothing listens on this memory transport — is the server running?",
        { reason: "nothing-listens" },
      );
    const [client, server] = memoryChannelPair({
      maxPayloadBytes: this.maxPayloadBytes,
      highWaterMarkBytes: this.highWaterMarkBytes,
      batches: this.batches,
    });
    onChannel(server);
    return client;
  }
}
