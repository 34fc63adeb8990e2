import { type ChannelOptions, Server as GrpcJsServer, ServerCredentials } from "@grpc/grpc-js";
import {
  type BindOptions,
  Code,
  NearwireError,
  type PeerAuthorizationOptions,
  type Server,
  type ServiceDefinition,
  type ServiceImpl,
} from "@nearwire/core";
import { bindHandlers, serverCloseHook } from "@nearwire/core/transport-kit";
import {
  bindStreamListener,
  createPeerGate,
  parseAddress,
  type StreamListener,
} from "@nearwire/socket";
import { DrainGate } from "./drain-gate.js";
import { grpcServiceBinding } from "./server-handlers.js";
import type { ReflectedService } from "./server-reflection.js";

/** Default grace period of a grpc-uds `server.close()` (its `graceMs`), in ms. */
export const DEFAULT_GRACE_MS = 5000;

/**
 * A nearwire Server on grpc-js. The socket is bound by `@nearwire/socket`'s
 * `bindStreamListener` (the same stale-file, mode, length and address-in-use behaviour as uds
 * and shm-ring; the file appears with its mode whatever the umask); grpc-js serves the
 * accepted connections through its connection injector, so the HTTP/2 and gRPC handling is
 * grpc-js's own. `createGrpcTransport` wraps it in `guardListen` (close() wins over listen()).
 */
export class GrpcServer implements Server {
  readonly #grpc: GrpcJsServer;
  readonly #addressOption: string;
  readonly #socketMode: number;
  readonly #onBound: (address: string) => void;
  readonly #closeHooks: (() => void)[] = [];
  readonly #gate = new DrainGate();
  #reflection: boolean;
  readonly #peers: PeerAuthorizationOptions;
  readonly #services: ReflectedService[] = [];
  #listener: StreamListener | undefined;
  #state: "new" | "binding" | "listening" | "closed" = "new";
  #address = "";

  constructor(
    address: string,
    socketMode: number,
    options: ChannelOptions,
    onBound: (address: string) => void,
    reflection = false,
    peers: PeerAuthorizationOptions = {},
  ) {
    this.#reflection = reflection;
    this.#peers = peers;
    this.#addressOption = address;
    this.#socketMode = socketMode;
    this.#onBound = onBound;
    this.#grpc = new GrpcJsServer(options);
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
    const binding = grpcServiceBinding(bindHandlers(service, impl, options.codec), this.#gate);
    try {
      this.#grpc.addService(binding.definition, binding.implementation);
    } catch (cause) {
      throw new NearwireError(Code.AlreadyExists, `service ${service.typeName} added twice`, {
        cause,
      });
    }
    this.#services.push({ typeName: service.typeName, codec: options.codec });
    const hook = serverCloseHook(impl);
    if (hook !== undefined) this.#closeHooks.push(hook);
    return this;
  }

  async listen(): Promise<void> {
    if (this.#state !== "new")
      throw new NearwireError(Code.FailedPrecondition, "listen() called twice");
    this.#state = "binding";
    if (this.#reflection) {
      // Loaded only here: @grpc/reflection brings proto-loader and protobufjs's descriptors, which
      // a process without reflection should not carry (start-up, heap).
      const { addServerReflection } = await import("./server-reflection.js");
      addServerReflection(this.#grpc, this.#services);
      this.#reflection = false;
    }
    const injector = this.#grpc.createConnectionInjector(ServerCredentials.createInsecure());
    let listener: StreamListener;
    try {
      const parsed = parseAddress(this.#addressOption);
      const gate = await createPeerGate(parsed, this.#peers);
      listener = await bindStreamListener(parsed, {
        socketMode: this.#socketMode,
        onConnection: (socket) => {
          if (!gate.checks) {
            injector.injectConnection(socket);
            return;
          }
          // grpc-js takes the socket only once the peer is admitted; a refused one is closed
          // before HTTP/2 starts (its client sees UNAVAILABLE: no status can reach it).
          const peer = gate.peerOf(
            socket,
            parsed.kind === "tcp"
              ? `tcp:${socket.remoteAddress}:${socket.remotePort}`
              : `grpc-uds:${parsed.address}`,
          );
          const start = (admitted: boolean): void => {
            if (admitted && !socket.destroyed) injector.injectConnection(socket);
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
      // close() ran meanwhile.
      await listener.close();
      throw new NearwireError(Code.Canceled, "close() was called while listen() was pending", {
        reason: "server-closing",
      });
    }
    this.#listener = listener;
    this.#state = "listening";
    this.#address = listener.address;
    this.#onBound(this.#address);
  }

  /**
   * Calls the services' `onServerClose` hooks (the health service goes NOT_SERVING), stops
   * accepting and removes the socket file, and drains: a new call on a connection still open
   * is answered UNAVAILABLE `server-closing`, calls in flight run on for up to `graceMs`
   * (default {@link DEFAULT_GRACE_MS}). Then `tryShutdown` (HTTP/2 GOAWAY) once they have all
   * ended, or `forceShutdown` at the end of the grace period (the remaining calls are
   * cancelled: their handlers' `ctx.signal` aborts, their clients see UNAVAILABLE
   * `server-closing`).
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

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
    const drained = await Promise.race([this.#gate.drain().then(() => true), graceOver]);
    if (drained) {
      // No call is open: GOAWAY, and the connections close (capped by what is left of the grace).
      await Promise.race([
        new Promise<void>((resolve) => this.#grpc.tryShutdown(() => resolve())),
        graceOver,
      ]);
    }
    clearTimeout(timer);
    this.#grpc.forceShutdown();
    await listenerClosed;
  }
}
