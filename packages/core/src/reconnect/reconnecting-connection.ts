/**
 * createReconnectingConnection: a ClientConnection over any Transport that reconnects with
 * backoff when its connection is lost and retries idempotent methods (grpc-js semantics).
 */
import { clientMethod } from "../intercept/client-chain.js";
import { type BoundMethod, bindService } from "../rpc/bound-method.js";
import type { ServiceDefinition } from "../service.js";
import { methodPath } from "../service.js";
import type {
  BindOptions,
  CallOptions,
  Client,
  ClientConnection,
  Transport,
} from "../transport.js";
import { ConnectionKeeper, type ConnectivityState } from "./connection-keeper.js";
import {
  type ReconnectOptions,
  type ResolvedRetryPolicy,
  resolveRetryPolicy,
  retryPolicyFor,
} from "./reconnect-options.js";
import { type CallRoute, retryingCall, retryingStream } from "./retrying-call.js";

/** A {@link ClientConnection} that reconnects; see {@link createReconnectingConnection}. */
export interface ReconnectingConnection extends ClientConnection {
  /** Connectivity state now, as gRPC names them (`idle`, `connecting`, `ready`, …). */
  readonly state: ConnectivityState;
}

type AnyMethod = (input: unknown, options?: CallOptions) => unknown;

/**
 * A client connection that outlives its underlying connections. It connects on the first call
 * (as a grpc-js channel leaves IDLE), and when the connection is lost — not by `close()` — it
 * reconnects at once and then after exponential backoff with jitter (gRPC
 * connection-backoff.md). Calls in flight on a lost connection fail UNAVAILABLE once, as on
 * the transport. Each call runs on the connection current when it starts; a call without
 * `waitForReady` fails UNAVAILABLE at once while the connection is in transient failure,
 * one with it waits (bounded by its deadline and signal). Methods named in `options.retry`
 * are retried (gRPC A6); `closed` resolves after `close()` or once it gives up
 * (`maxConnectAttempts`).
 *
 * @example
 * ```ts
 * const conn = createReconnectingConnection(createUdsTransport({ address }), {
 *   backoff: { initialMs: 100, maxMs: 5000 },
 *   retry: { "example.Greeter": { maxAttempts: 3 } },
 * });
 * const greeter = conn.client(Greeter, { codec: jsonCodec });
 * await greeter.say({ name: "x" }, { waitForReady: true, timeoutMs: 10_000 });
 * ```
 */
export function createReconnectingConnection(
  transport: Transport,
  options: ReconnectOptions = {},
): ReconnectingConnection {
  const keeper = new ConnectionKeeper(transport, options);
  const policies = new Map<string, ResolvedRetryPolicy>();
  for (const [name, policy] of Object.entries(options.retry ?? {}))
    policies.set(name, resolveRetryPolicy(name, policy));
  return {
    get state() {
      return keeper.state;
    },
    closed: keeper.closed,
    client<S extends ServiceDefinition>(service: S, bind: BindOptions): Client<S> {
      return routedClient(keeper, policies, service, bind);
    },
    close: () => keeper.close(),
    [Symbol.asyncDispose]: () => keeper.close(),
  };
}

/**
 * A typed client whose every call goes through the keeper; the typed clients of the
 * underlying connections are made once per connection.
 */
function routedClient<S extends ServiceDefinition>(
  keeper: ConnectionKeeper,
  policies: ReadonlyMap<string, ResolvedRetryPolicy>,
  service: S,
  bind: BindOptions,
): Client<S> {
  const codec = bind.codec;
  const bound = new Map(bindService(service, codec).map((b) => [b.name, b]));
  const perConnection = new WeakMap<ClientConnection, Record<string, AnyMethod>>();
  const methodOn = (conn: ClientConnection, name: string): AnyMethod => {
    let client = perConnection.get(conn);
    if (client === undefined) {
      client = conn.client(service, { codec }) as unknown as Record<string, AnyMethod>;
      perConnection.set(conn, client);
    }
    return client[name] as AnyMethod;
  };
  const client: Record<string, AnyMethod> = {};
  for (const [name, method] of Object.entries(service.methods)) {
    const route: CallRoute = {
      keeper,
      policy: retryPolicyFor(policies, service.typeName, methodPath(service, name)),
    };
    const start = (input: unknown) => (conn: ClientConnection, o: CallOptions | undefined) =>
      methodOn(conn, name)(input, o);
    // A request stream can be sent again only when it is an array (gRPC buffers what it sent;
    // an iterator here may be one-shot).
    const replayable = (input: unknown) =>
      method.kind === "unary" || method.kind === "server_streaming" || Array.isArray(input);
    const retrying: AnyMethod =
      method.kind === "unary" || method.kind === "client_streaming"
        ? (input, o) => retryingCall(route, o, replayable(input), start(input) as never)
        : (input, o) => retryingStream(route, o, replayable(input), start(input) as never);
    // The service's interceptors see the call once, whatever the attempts below them; the
    // diagnostics events are each attempt's, published by the connection it went to.
    client[name] = clientMethod(bound.get(name) as BoundMethod, retrying, bind.interceptors, false);
  }
  return client as unknown as Client<S>;
}
