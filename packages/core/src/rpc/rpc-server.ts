/** RpcServer: the server side of the RPC engine over any ChannelProvider; RpcOptions. */
import type { ChannelListener, ChannelProvider } from "../channel.js";
import { Code } from "../code.js";
import { NearwireError } from "../nearwire-error.js";
import { serverCloseHook } from "../server-close-hook.js";
import type { ServiceDefinition } from "../service.js";
import type { BindOptions, Server, ServiceImpl } from "../transport.js";
import type { HandlerErrorHook } from "./handler-error.js";
import { MethodTable } from "./method-table.js";
import { bindHandlers } from "./served-method.js";
import { ServerSession, type ServerSessionHost } from "./server-session.js";

/** Options shared by the RPC server and client. */
export interface RpcOptions {
  /**
   * Largest encoded message either side sends or accepts, bytes. Default 4 MiB (gRPC's
   * default). A larger one fails its call with RESOURCE_EXHAUSTED; the connection stays up.
   */
  maxMessageBytes?: number;
  /** Default grace period of `Server.close()`, ms. Default 5000. */
  graceMs?: number;
  /**
   * Server: calls one connection may hold open at once (HTTP/2's MAX_CONCURRENT_STREAMS).
   * Default {@link DEFAULT_MAX_CONCURRENT_CALLS}. A REQUEST beyond it is answered with STATUS
   * RESOURCE_EXHAUSTED for that call; the connection stays up. Not announced on the wire.
   */
  maxConcurrentCalls?: number;
  /**
   * Server: a connection with no open call and no frame received for this long is closed
   * (cleanly), ms; checked at this interval, so after 1–2× the value. Default 0: never (a
   * client connection does not reconnect, so closing quiet ones is the application's choice).
   */
  idleTimeoutMs?: number;
  /**
   * Offer the peer BATCH frames (PROTOCOL.md §4.1, §5.2): this side announces in its preface
   * that it takes them, and when the peer announces it too, a stream's small messages travel
   * several to a frame (up to 4 KiB), each frame sent at once when full and at the end of the
   * tick otherwise. Default true. With false (or a peer that does not announce them) every
   * message is one MESSAGE frame. A per-connection choice: what the application sees is the
   * same either way.
   */
  batches?: boolean;
  /**
   * Server: called once for each error a handler throws (or its promise or stream rejects
   * with) that is not a NearwireError — a bug, as far as the server can tell. Its return value
   * is what the client gets: undefined for the default, UNKNOWN with the error's message (as
   * grpc-js sends it); return a NearwireError to send another code or hide the text. Default
   * {@link logHandlerError}: one `console.error` line with the method and the peer, and the
   * stack. A NearwireError is the handler's answer, not a failure: it is sent as is, unlogged.
   */
  onHandlerError?: HandlerErrorHook;
}

/**
 * Default of {@link RpcOptions.maxConcurrentCalls}: 4096 — well above the bench's 64 in flight
 * and the conformance suite's 1,000 concurrent calls on one connection, while a connection's
 * open calls stay near 1.5 MiB (about 330 B each) and are torn down in well under a millisecond.
 */
export const DEFAULT_MAX_CONCURRENT_CALLS = 4096;

/** Default of {@link RpcOptions.maxMessageBytes}: 4 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * Room for the RPC envelope (call id, method, metadata) on top of a message: a transport sets
 * its frame limit to `maxMessageBytes + ENVELOPE_HEADROOM_BYTES`.
 */
export const ENVELOPE_HEADROOM_BYTES = 64 * 1024;

/** The RPC server over any {@link ChannelProvider}. */
export class RpcServer implements Server, ServerSessionHost {
  readonly methods = new MethodTable();
  readonly maxMessageBytes: number;
  readonly maxConcurrentCalls: number;
  readonly idleTimeoutMs: number;
  readonly onHandlerError: HandlerErrorHook | undefined;
  draining = false;
  private listener: ChannelListener | undefined;
  private readonly sessions = new Set<ServerSession>();
  private idleWaiter: (() => void) | undefined;
  private readonly graceMs: number;
  private readonly closeHooks: (() => void)[] = [];

  constructor(
    private readonly provider: ChannelProvider,
    options: RpcOptions = {},
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.graceMs = options.graceMs ?? 5000;
    const max = options.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS;
    if (!Number.isInteger(max) || max < 1) {
      throw new NearwireError(
        Code.InvalidArgument,
        `maxConcurrentCalls ${max} is not a positive integer`,
      );
    }
    this.maxConcurrentCalls = max;
    const idle = options.idleTimeoutMs ?? 0;
    if (!Number.isInteger(idle) || idle < 0 || idle > 2 ** 31 - 1) {
      throw new NearwireError(Code.InvalidArgument, `idleTimeoutMs ${idle} is not in 0..2^31-1`);
    }
    this.idleTimeoutMs = idle;
    this.onHandlerError = options.onHandlerError;
  }

  get address(): string {
    if (this.listener === undefined)
      throw new NearwireError(Code.FailedPrecondition, "server is not listening");
    return this.listener.address;
  }

  addService<S extends ServiceDefinition>(
    service: S,
    impl: ServiceImpl<S>,
    options: BindOptions,
  ): this {
    if (this.listener !== undefined)
      throw new NearwireError(Code.FailedPrecondition, "addService after listen");
    const served = bindHandlers(service, impl, options);
    const taken = served.find((m) => this.methods.has(m.bound.path));
    if (taken !== undefined)
      throw new NearwireError(Code.AlreadyExists, `service ${service.typeName} added twice`);
    for (const method of served) this.methods.add(method);
    const hook = serverCloseHook(impl);
    if (hook !== undefined) this.closeHooks.push(hook);
    return this;
  }

  async listen(): Promise<void> {
    if (this.listener !== undefined)
      throw new NearwireError(Code.FailedPrecondition, "server is already listening");
    this.listener = await this.provider.listen((channel) => {
      if (this.draining) {
        void channel.close(
          new NearwireError(Code.Unavailable, "server is shutting down", {
            reason: "server-closing",
          }),
        );
        return;
      }
      this.sessions.add(new ServerSession(channel, this));
    });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async close(options: { graceMs?: number } = {}): Promise<void> {
    const graceMs = options.graceMs ?? this.graceMs;
    if (!this.draining) for (const hook of this.closeHooks) hook();
    this.draining = true;
    await this.listener?.close();
    if (this.activeCalls() > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.idleWaiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.idleWaiter = undefined;
    await Promise.all(
      [...this.sessions].map((s) =>
        s.shutdown(Code.Unavailable, "server closed before the call finished"),
      ),
    );
  }

  sessionClosed(session: ServerSession): void {
    this.sessions.delete(session);
    this.callsChanged();
  }

  callsChanged(): void {
    if (this.idleWaiter !== undefined && this.activeCalls() === 0) this.idleWaiter();
  }

  private activeCalls(): number {
    let n = 0;
    for (const s of this.sessions) n += s.calls.size;
    return n;
  }
}
