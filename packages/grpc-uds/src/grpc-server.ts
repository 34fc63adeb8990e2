import { type ChannelOptions, Server as GrpcJsServer, ServerCredentials } from "@grpc/grpc-js";
import {
  type BindOptions,
  Code,
  NearwireError,
  type Server,
  type ServiceDefinition,
  type ServiceImpl,
} from "@nearwire/core";
import { parseGrpcAddress } from "./grpc-address.js";
import { bindService } from "./server-handlers.js";
import { bindSocketListener, type SocketListener } from "./socket-listener.js";

/** Default grace period of {@link GrpcServer.close}, in ms. */
export const DEFAULT_GRACE_MS = 5000;

/**
 * A nearwire Server on grpc-js. The socket is bound here (stale-file check, mode, length limit,
 * ALREADY_EXISTS on a live address); grpc-js serves the accepted connections through its
 * connection injector, so the HTTP/2 and gRPC handling is grpc-js's own.
 */
export class GrpcServer implements Server {
  readonly #grpc: GrpcJsServer;
  readonly #addressOption: string;
  readonly #socketMode: number;
  readonly #onBound: (address: string) => void;
  #listener: SocketListener | undefined;
  #state: "new" | "listening" | "closed" = "new";
  #address = "";

  constructor(
    address: string,
    socketMode: number,
    options: ChannelOptions,
    onBound: (address: string) => void,
  ) {
    this.#addressOption = address;
    this.#socketMode = socketMode;
    this.#onBound = onBound;
    this.#grpc = new GrpcJsServer(options);
  }

  /** The bound address (`unix:/path`, `unix-abstract:name`, `host:port` with the real port). */
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
    const binding = bindService(service, impl as Record<string, never>, (type) =>
      options.codec.forType(type),
    );
    try {
      this.#grpc.addService(binding.definition, binding.implementation);
    } catch (cause) {
      throw new NearwireError(Code.AlreadyExists, `service ${service.typeName} added twice`, {
        cause,
      });
    }
    return this;
  }

  async listen(): Promise<void> {
    if (this.#state !== "new")
      throw new NearwireError(Code.FailedPrecondition, "listen() called twice");
    const address = parseGrpcAddress(this.#addressOption);
    const injector = this.#grpc.createConnectionInjector(ServerCredentials.createInsecure());
    this.#listener = await bindSocketListener(address, this.#socketMode, (socket) =>
      injector.injectConnection(socket),
    );
    this.#state = "listening";
    this.#address = this.#listener.address;
    this.#onBound(this.#address);
  }

  /**
   * Stops accepting and removes the socket file, then `tryShutdown` (GOAWAY; calls in flight may
   * finish) for up to `graceMs` (default {@link DEFAULT_GRACE_MS}), then `forceShutdown`
   * (remaining calls are cancelled: their handlers' `ctx.signal` aborts).
   */
  async close(options?: { graceMs?: number }): Promise<void> {
    if (this.#state !== "listening") {
      this.#state = "closed";
      return;
    }
    this.#state = "closed";
    const graceMs = options?.graceMs ?? DEFAULT_GRACE_MS;
    const listenerClosed = (this.#listener as SocketListener).close();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#grpc.forceShutdown();
        resolve();
      }, graceMs);
      this.#grpc.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    await listenerClosed;
  }
}
