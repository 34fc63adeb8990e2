/** guardListen: one close()-versus-listen() behaviour for every transport's server. */
import { Code } from "./code.js";
import { NearwireError } from "./nearwire-error.js";
import type { ServiceDefinition } from "./service.js";
import type { BindOptions, Server, ServiceImpl } from "./transport.js";

/**
 * Wraps a transport's {@link Server} so that `close()` always wins over `listen()`:
 *
 * - `close()` while `listen()` is pending waits for the bind to finish, then closes the server
 *   (the address is released, the socket file removed); the pending `listen()` rejects with
 *   CANCELLED reason `server-closing` once that is done. If the bind itself failed, `listen()`
 *   rejects with that error instead.
 * - `listen()` after `close()` rejects with FAILED_PRECONDITION reason `server-closing` and
 *   binds nothing.
 *
 * `createRpcTransport` (uds, shm-ring, the memory transport, any channel provider) and
 * grpc-uds return their servers through this: one behaviour on every transport.
 */
export function guardListen(server: Server): Server {
  return new GuardedServer(server);
}

class GuardedServer implements Server {
  private readonly inner: Server;
  private listening: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(inner: Server) {
    this.inner = inner;
  }

  get address(): string {
    return this.inner.address;
  }

  addService<S extends ServiceDefinition>(
    service: S,
    impl: ServiceImpl<S>,
    options: BindOptions,
  ): this {
    this.inner.addService(service, impl, options);
    return this;
  }

  async listen(): Promise<void> {
    if (this.closing !== undefined) {
      throw new NearwireError(Code.FailedPrecondition, "listen() after close()", {
        reason: "server-closing",
      });
    }
    if (this.listening !== undefined) {
      throw new NearwireError(Code.FailedPrecondition, "listen() called twice");
    }
    this.listening = this.inner.listen();
    await this.listening;
    if (this.closing !== undefined) {
      await this.closing;
      throw new NearwireError(
        Code.Canceled,
        "close() was called while listen() was pending; the address was released",
        { reason: "server-closing" },
      );
    }
  }

  close(options?: { graceMs?: number }): Promise<void> {
    this.closing ??= (async () => {
      await this.listening?.catch(() => {});
      await this.inner.close(options);
    })();
    return this.closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
