import type net from "node:net";
import {
  type BindOptions,
  Code,
  type HandlerErrorHook,
  NearwireError,
  type Peer,
  type PeerAuthorizationOptions,
  type Server,
  type ServiceDefinition,
  type ServiceImpl,
} from "@nearwire/core";
import { bindHandlers, type ServedMethod, serverCloseHook } from "@nearwire/core/transport-kit";
import {
  adoptAccepted,
  bindStreamListener,
  createPeerGate,
  parseAddress,
  SocketReader,
  type StreamListener,
} from "@nearwire/socket";
import type { SessionLimits } from "../http2/http2-session.js";
import type { TlsServerSetup } from "../tls-options.js";
import { DrainGate } from "./drain-gate.js";
import { type ReflectedService, reflectionServices } from "./reflection/reflection-service.js";
import { type ConnectionHost, ServerConnection } from "./server-connection.js";

/** Default grace period of a grpc-uds `server.close()` (its `graceMs`), in ms. */
export const DEFAULT_GRACE_MS = 5000;

/** How a {@link GrpcServer} is set up (filled from the transport's options). */
export interface GrpcServerSetup {
  readonly address: string;
  readonly socketMode: number;
  readonly maxMessageBytes: number;
  readonly limits: SessionLimits;
  readonly highWaterMarkBytes: number;
  readonly reflection: boolean;
  readonly onHandlerError: HandlerErrorHook | undefined;
  readonly peers: PeerAuthorizationOptions;
  readonly tls: TlsServerSetup | undefined;
  readonly onBound: (address: string) => void;
}

/**
 * A nearwire Server speaking gRPC over HTTP/2 with nearwire's own engine. The socket is bound by
 * `@nearwire/socket`'s `bindStreamListener` (the same stale-file, mode, length and
 * address-in-use behaviour as uds and shm-ring); each accepted connection, once its peer is
 * admitted, becomes a {@link ServerConnection}. `createGrpcTransport` wraps it in `guardListen`
 * (close() wins over listen()).
 */
export class GrpcServer implements Server, ConnectionHost {
  readonly methods = new Map<string, ServedMethod>();
  readonly gate = new DrainGate();
  readonly maxMessageBytes: number;
  readonly limits: SessionLimits;
  readonly highWaterMarkBytes: number;
  readonly onHandlerError: HandlerErrorHook | undefined;
  readonly #setup: GrpcServerSetup;
  readonly #closeHooks: (() => void)[] = [];
  readonly #services: ReflectedService[] = [];
  readonly #connections = new Set<ServerConnection>();
  #listener: StreamListener | undefined;
  #state: "new" | "binding" | "listening" | "closed" = "new";
  #address = "";

  constructor(setup: GrpcServerSetup) {
    this.#setup = setup;
    this.maxMessageBytes = setup.maxMessageBytes;
    this.limits = setup.limits;
    this.highWaterMarkBytes = setup.highWaterMarkBytes;
    this.onHandlerError = setup.onHandlerError;
  }

  /**
   * The bound address in `@nearwire/socket`'s canonical form (`/path`, `unix-abstract:name`,
   * `tcp:host:port` with the real port); `grpcTarget(parseAddress(address))` is what a stock
   * gRPC client takes.
   */
  get address(): string {
    return this.#address;
  }

  addService<S extends ServiceDefinition>(
    service: S,
    impl: ServiceImpl<S>,
    options: BindOptions,
  ): this {
    if (this.#state !== "new") {
      throw new NearwireError(
        Code.FailedPrecondition,
        `addService(${service.typeName}) after listen`,
      );
    }
    const methods = bindHandlers(service, impl, options);
    if (methods.some((m) => this.methods.has(m.bound.path)))
      throw new NearwireError(Code.AlreadyExists, `service ${service.typeName} added twice`);
    for (const m of methods) this.methods.set(m.bound.path, m);
    this.#services.push({ typeName: service.typeName, codec: options.codec });
    const hook = serverCloseHook(impl);
    if (hook !== undefined) this.#closeHooks.push(hook);
    return this;
  }

  async listen(): Promise<void> {
    if (this.#state !== "new")
      throw new NearwireError(Code.FailedPrecondition, "listen() called twice");
    this.#state = "binding";
    if (this.#setup.reflection) {
      for (const { definition, impl, codec } of reflectionServices(this.#services)) {
        for (const m of bindHandlers(definition, impl, { codec }))
          this.methods.set(m.bound.path, m);
      }
    }
    const setup = this.#setup;
    let listener: StreamListener;
    try {
      const parsed = parseAddress(setup.address);
      const gate = await createPeerGate(parsed, setup.peers);
      const describe = (socket: net.Socket): string =>
        parsed.kind === "tcp"
          ? `tcp:${socket.remoteAddress}:${socket.remotePort}`
          : `grpc-uds:${parsed.address}`;
      listener = await bindStreamListener(parsed, {
        socketMode: setup.socketMode,
        onConnection: (accepted) => {
          // A plain connection reads into a reused buffer (TLS decrypts into its own).
          const reader = setup.tls === undefined ? new SocketReader() : undefined;
          const adopted = reader === undefined ? undefined : adoptAccepted(accepted, reader);
          const socket = adopted ?? accepted;
          const read = adopted === undefined ? undefined : reader;
          if (!gate.checks) {
            this.#serve(socket, { address: describe(socket) }, read);
            return;
          }
          // HTTP/2 starts only once the peer is admitted; a refused one is closed before it
          // (its client sees UNAVAILABLE: no status can reach it).
          const peer = gate.peerOf(socket, describe(socket));
          const start = (admitted: boolean): void => {
            if (admitted && !socket.destroyed) this.#serve(socket, peer, read);
            else socket.destroy();
          };
          const admitted = gate.admit(peer);
          if (typeof admitted === "boolean") start(admitted);
          else void admitted.then(start);
        },
      });
    } catch (err) {
      if (this.#state === "binding") this.#state = "new";
      throw err;
    }
    if (this.#state !== "binding") {
      await listener.close();
      throw new NearwireError(Code.Canceled, "close() was called while listen() was pending", {
        reason: "server-closing",
      });
    }
    this.#listener = listener;
    this.#state = "listening";
    this.#address = listener.address;
    setup.onBound(this.#address);
  }

  #serve(socket: net.Socket, peer: Peer, reader: SocketReader | undefined): void {
    if (this.#state === "closed") {
      socket.destroy();
      return;
    }
    socket.setNoDelay?.(true);
    const tls = this.#setup.tls;
    if (tls === undefined) {
      this.#connections.add(new ServerConnection(socket, this, peer, reader));
      return;
    }
    tls.wrap(socket, peer, (secured, tlsPeer) => {
      if (this.#state === "closed") secured.destroy();
      else this.#connections.add(new ServerConnection(secured, this, tlsPeer));
    });
  }

  connectionClosed(connection: ServerConnection): void {
    this.#connections.delete(connection);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Calls the services' `onServerClose` hooks (the health service goes NOT_SERVING), stops
   * accepting and removes the socket file, and drains: a new call on a connection still open is
   * answered UNAVAILABLE `server-closing`, calls in flight run on for up to `graceMs` (default
   * {@link DEFAULT_GRACE_MS}). Then GOAWAY on every connection once they have all ended; at the
   * end of the grace period the remaining calls are ended with UNAVAILABLE `server-closing`
   * (their handlers' `ctx.signal` aborts) before it.
   */
  async close(options?: { graceMs?: number }): Promise<void> {
    if (this.#state !== "listening") {
      this.#state = "closed";
      return;
    }
    this.#state = "closed";
    for (const hook of this.#closeHooks) hook();
    const graceMs = options?.graceMs ?? DEFAULT_GRACE_MS;
    const listenerClosed = (this.#listener as StreamListener).close();
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), graceMs);
    });
    const drained = await Promise.race([this.gate.drain().then(() => true), graceOver]);
    const connections = [...this.#connections];
    for (const connection of connections) {
      if (drained) connection.goAway();
      else connection.abortCalls(this.gate.refusal());
    }
    await Promise.race([
      Promise.all(connections.map((c) => c.closed)),
      graceOver.then(() => undefined),
    ]);
    clearTimeout(timer);
    for (const connection of this.#connections) connection.session.destroy();
    await listenerClosed;
  }
}
