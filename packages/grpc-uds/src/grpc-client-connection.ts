import {
  type ChannelOptions,
  connectivityState,
  credentials,
  Client as GrpcClient,
} from "@grpc/grpc-js";
import {
  type BindOptions,
  type Client,
  type ClientConnection,
  Code,
  NearwireError,
  type ServiceDefinition,
} from "@nearwire/core";
import { bindClient, type CallSite } from "./client-methods.js";
import { fromGrpcError, REASON_TRAILER } from "./grpc-metadata.js";

/**
 * A nearwire ClientConnection over one grpc-js client (its own HTTP/2 connection: the subchannel
 * pool is local). Like a `uds` connection it does not reconnect: once the HTTP/2 connection is
 * lost (peer died, server shut down) `closed` resolves with UNAVAILABLE and new calls fail with
 * UNAVAILABLE; make a new connection to go on.
 */
export class GrpcClientConnection implements ClientConnection, CallSite {
  grpcClient: GrpcClient | NearwireError;
  readonly calls = new Set<{ cancel(): void }>();
  readonly closed: Promise<Error | undefined>;
  #resolveClosed!: (error: Error | undefined) => void;
  #closedByUs = false;

  private constructor(client: GrpcClient) {
    this.grpcClient = client;
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  /**
   * Connects to `target` and resolves once the HTTP/2 connection is ready. Rejects with
   * UNAVAILABLE when nobody listens there or the connection is not ready within `timeoutMs`;
   * when it fails, `probe` (one plain connect) tells "nothing listens" apart from other causes.
   */
  static async open(
    target: string,
    options: ChannelOptions,
    timeoutMs: number,
    probe?: () => Promise<NearwireError | undefined>,
  ): Promise<GrpcClientConnection> {
    const client = new GrpcClient(target, credentials.createInsecure(), options);
    const channel = client.getChannel();
    const deadline = Date.now() + timeoutMs;
    let state = channel.getConnectivityState(true);
    try {
      while (state !== connectivityState.READY) {
        if (state === connectivityState.TRANSIENT_FAILURE || state === connectivityState.SHUTDOWN) {
          throw new NearwireError(Code.Unavailable, `cannot connect to ${target}`, {
            reason: "peer-closed",
          });
        }
        await watch(channel, state, deadline, target);
        state = channel.getConnectivityState(true);
      }
    } catch (err) {
      client.close();
      throw (await probe?.()) ?? err;
    }
    const connection = new GrpcClientConnection(client);
    connection.#watchLoss();
    return connection;
  }

  client<S extends ServiceDefinition>(service: S, options: BindOptions): Client<S> {
    return bindClient(this, service, options.codec) as Client<S>;
  }

  mapError(err: unknown, signal: AbortSignal | undefined): NearwireError {
    const mapped = fromGrpcError(err);
    // A long deadline kept by the client (beyond what grpc-js can carry) cancelled the call.
    const why = signal?.reason;
    if (why instanceof NearwireError && why.code === Code.DeadlineExceeded && signal?.aborted) {
      return why;
    }
    if (mapped.code !== Code.Canceled || signal?.aborted === true || hasReasonTrailer(err))
      return mapped;
    // CANCELLED that neither the caller nor a handler asked for: our own close(), or the server
    // resetting the stream (forced shutdown). Both mean the connection is gone.
    if (this.#closedByUs) {
      return new NearwireError(Code.Unavailable, "connection closed by the client", {
        cause: mapped,
      });
    }
    // A server resets its calls only when it shuts down past its grace period (a dead one drops
    // the connection: UNAVAILABLE from grpc-js): the same reason as the RPC engine's STATUS.
    return new NearwireError(Code.Unavailable, `call reset by the server: ${mapped.message}`, {
      cause: mapped,
      reason: "server-closing",
    });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async close(): Promise<void> {
    if (this.grpcClient instanceof NearwireError) {
      this.#closedByUs = true;
      for (const call of this.calls) call.cancel();
      return;
    }
    this.#closedByUs = true;
    const client = this.grpcClient;
    this.grpcClient = new NearwireError(Code.Unavailable, "connection is closed");
    for (const call of this.calls) call.cancel();
    this.calls.clear();
    client.close();
    this.#resolveClosed(undefined);
  }

  /** Marks the connection lost when the channel leaves READY (its HTTP/2 connection ended). */
  #watchLoss(): void {
    const client = this.grpcClient;
    if (client instanceof NearwireError) return;
    const channel = client.getChannel();
    channel.watchConnectivityState(connectivityState.READY, Number.POSITIVE_INFINITY, () => {
      if (this.grpcClient !== client) return;
      const error = new NearwireError(Code.Unavailable, "connection to the server was lost", {
        reason: "peer-closed",
      });
      this.grpcClient = error;
      client.close();
      this.#resolveClosed(error);
    });
  }
}

function watch(
  channel: ReturnType<GrpcClient["getChannel"]>,
  state: connectivityState,
  deadline: number,
  target: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    channel.watchConnectivityState(state, deadline, (err) => {
      if (err === undefined) resolve();
      else
        reject(
          new NearwireError(Code.Unavailable, `no connection to ${target} before the deadline`, {
            cause: err,
          }),
        );
    });
  });
}

function hasReasonTrailer(err: unknown): boolean {
  const metadata = (err as { metadata?: { get(key: string): unknown[] } }).metadata;
  return (
    metadata !== undefined &&
    typeof metadata.get === "function" &&
    metadata.get(REASON_TRAILER).length > 0
  );
}
