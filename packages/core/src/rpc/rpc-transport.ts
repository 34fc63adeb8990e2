/** createRpcTransport and connectRpc: a Transport from a ChannelProvider. */
import type { Channel, ChannelProvider } from "../channel.js";
import { guardListen } from "../guard-listen.js";
import { type ClientMethod, clientMethod } from "../intercept/client-chain.js";
import type { ServiceDefinition } from "../service.js";
import type { BindOptions, Client, ClientConnection, Transport } from "../transport.js";
import { type BoundMethod, bindService } from "./bound-method.js";
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
      const client: Record<string, ClientMethod> = {};
      for (const bound of bindService(service, bind.codec))
        client[bound.name] = clientMethod(bound, sessionCall(session, bound), bind.interceptors);
      return client as Client<S>;
    },
  };
}

/** The session's call of `bound`'s kind. */
function sessionCall(session: ClientSession, bound: BoundMethod): ClientMethod {
  switch (bound.kind) {
    case "unary":
      return (req, o) => session.unary(bound, req, o);
    case "server_streaming":
      return (req, o) => session.serverStreaming(bound, req, o);
    case "client_streaming":
      return (reqs, o) => session.clientStreaming(bound, reqs as Requests, o);
    case "bidi_streaming":
      return (reqs, o) => session.bidiStreaming(bound, reqs as Requests, o);
  }
}

type Requests = AsyncIterable<unknown> | Iterable<unknown>;
