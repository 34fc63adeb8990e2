/** createRpcTransport and connectRpc: a Transport from a ChannelProvider. */
import type { Channel, ChannelProvider } from "../channel.js";
import { guardListen } from "../guard-listen.js";
import type { ServiceDefinition } from "../service.js";
import type {
  BindOptions,
  CallOptions,
  Client,
  ClientConnection,
  Transport,
} from "../transport.js";
import { bindService } from "./bound-method.js";
import { ClientSession } from "./client-session.js";
import { DEFAULT_MAX_MESSAGE_BYTES, type RpcOptions, RpcServer } from "./rpc-server.js";

/**
 * Makes a {@link Transport} from a channel provider: the nearwire RPC engine (call ids,
 * multiplexing, deadlines, cancellation, stream credit, status codes; PROTOCOL.md §5) over
 * the provider's channels. `@nearwire/uds` and `@nearwire/shm-ring` are built this way.
 */
export function createRpcTransport(provider: ChannelProvider, options: RpcOptions = {}): Transport {
  return {
    name: provider.name,
    createServer: () => guardListen(new RpcServer(provider, options)),
    connect: async () => connectRpc(await provider.connect(), options),
  };
}

/** Runs the client side of the RPC engine over an already connected channel. */
export function connectRpc(channel: Channel, options: RpcOptions = {}): ClientConnection {
  const session = new ClientSession(channel, options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
  return {
    closed: session.closed,
    close: () => session.close(),
    [Symbol.asyncDispose]: () => session.close(),
    client<S extends ServiceDefinition>(service: S, bind: BindOptions): Client<S> {
      const client: Record<string, unknown> = {};
      for (const bound of bindService(service, bind.codec)) {
        switch (bound.kind) {
          case "unary":
            client[bound.name] = (req: unknown, o?: CallOptions) => session.unary(bound, req, o);
            break;
          case "server_streaming":
            client[bound.name] = (req: unknown, o?: CallOptions) =>
              session.serverStreaming(bound, req, o);
            break;
          case "client_streaming":
            client[bound.name] = (reqs: AsyncIterable<unknown>, o?: CallOptions) =>
              session.clientStreaming(bound, reqs, o);
            break;
          case "bidi_streaming":
            client[bound.name] = (reqs: AsyncIterable<unknown>, o?: CallOptions) =>
              session.bidiStreaming(bound, reqs, o);
            break;
        }
      }
      return client as Client<S>;
    },
  };
}
