/**
 * GrpcClientConnection: a nearwire ClientConnection over one HTTP/2 connection to a gRPC server
 * (nearwire's or any stock one). Calls beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS wait
 * for a stream to close. Like a `uds` connection it does not reconnect: once the connection is
 * lost, `closed` resolves with UNAVAILABLE and new calls fail with UNAVAILABLE.
 */
import type { Duplex } from "node:stream";
import {
  type BindOptions,
  type Client,
  type ClientConnection,
  Code,
  NearwireError,
  type ServiceDefinition,
} from "@nearwire/core";
import { type BoundMethod, closedByCaller } from "@nearwire/core/transport-kit";
import type { SocketReader } from "@nearwire/socket";
import { ACCEPT_ENCODING, type Encoding } from "../grpc/compression.js";
import { BufferBudget, unfinishedMessageLimit } from "../grpc/message-reader.js";
import { H2Code } from "../http2/frame.js";
import type { WritableSocket } from "../http2/frame-writer.js";
import { Http2Session, type SessionLimits } from "../http2/http2-session.js";
import { connectionPool } from "../message-pool.js";
import type { CallSite, ClientCall } from "./client-call.js";
import { bindClient } from "./client-methods.js";

/** How a connection is made (filled from the transport's options). */
export interface ClientSetup {
  /**
   * Opens the socket (plain or TLS) and resolves once it is connected, with the `SocketReader`
   * it was made with, if any (see `Http2Session`).
   */
  connectSocket(): Promise<{ socket: WritableSocket & Duplex; reader?: SocketReader }>;
  readonly limits: SessionLimits;
  readonly maxMessageBytes: number;
  readonly highWaterMarkBytes: number;
  readonly scheme: string;
  readonly authority: string;
  readonly sendEncoding: Encoding;
  readonly connectTimeoutMs: number;
  /** Names what listens at the address when the connection fails (nothing, another transport). */
  probe?(): Promise<NearwireError | undefined>;
  /** Describes the target in messages. */
  readonly target: string;
}

/** `user-agent` of every call: gRPC's `grpc-<language>-<implementation>/<version>` form. */
const USER_AGENT = "grpc-node-nearwire/0.1";

export class GrpcClientConnection implements ClientConnection, CallSite {
  session: Http2Session | NearwireError;
  readonly maxMessageBytes: number;
  readonly budget: BufferBudget;
  /** Buffers of response messages lent back by callers (`CallOptions.lendMessages`). */
  readonly lendPool = connectionPool();
  readonly highWaterMarkBytes: number;
  readonly scheme: string;
  readonly authority: string;
  readonly sendEncoding: Encoding;
  readonly closed: Promise<Error | undefined>;
  lostError: NearwireError | undefined;
  readonly #calls = new Set<ClientCall>();
  readonly #requestFields = new Map<string, readonly string[]>();
  /** Calls waiting for the server's stream limit, in order. */
  #waiting: ClientCall[] = [];
  #waitingHead = 0;
  #resolveClosed!: (error: Error | undefined) => void;
  #closedByUs = false;

  private constructor(setup: ClientSetup) {
    this.session = new NearwireError(Code.Unavailable, "connecting");
    this.maxMessageBytes = setup.maxMessageBytes;
    this.budget = new BufferBudget(unfinishedMessageLimit(setup.maxMessageBytes));
    this.highWaterMarkBytes = setup.highWaterMarkBytes;
    this.scheme = setup.scheme;
    this.authority = setup.authority;
    this.sendEncoding = setup.sendEncoding;
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  /**
   * Connects and resolves once the server's SETTINGS arrived. Rejects with UNAVAILABLE when
   * nobody listens or the handshake does not complete within `connectTimeoutMs`; `probe` then
   * names what listens there instead (nothing, another nearwire transport).
   */
  static async open(setup: ClientSetup): Promise<GrpcClientConnection> {
    const connection = new GrpcClientConnection(setup);
    let socket: WritableSocket & Duplex;
    let reader: SocketReader | undefined;
    try {
      ({ socket, reader } = await withTimeout(
        setup.connectSocket(),
        setup.connectTimeoutMs,
        setup.target,
      ));
    } catch (err) {
      throw (
        (await setup.probe?.()) ??
        NearwireError.from(err, Code.Unavailable, `cannot connect to ${setup.target}`)
      );
    }
    let ready!: () => void;
    let failed!: (err: Error | undefined) => void;
    const up = new Promise<void>((resolve, reject) => {
      ready = resolve;
      failed = (err) =>
        reject(
          new NearwireError(
            Code.Unavailable,
            `HTTP/2 handshake with ${setup.target} failed: ${err?.message ?? "connection closed"}`,
            {
              reason: "peer-closed",
              cause: err,
            },
          ),
        );
    });
    const session = new Http2Session(
      socket,
      "client",
      setup.limits,
      {
        onReady: () => ready(),
        onStreamClosed: () => connection.#startWaiting(),
        onGoAway: (_last, code) => connection.#onGoAway(code),
        onClose: (error) => {
          if (!session.open && connection.session !== session) failed(error);
          connection.#lost(session, error);
        },
      },
      reader,
    );
    try {
      await withTimeout(up, setup.connectTimeoutMs, setup.target);
    } catch (err) {
      session.destroy();
      throw (await setup.probe?.()) ?? err;
    }
    connection.session = session;
    session.startKeepalive();
    return connection;
  }

  client<S extends ServiceDefinition>(service: S, options: BindOptions): Client<S> {
    return bindClient(this, service, options) as unknown as Client<S>;
  }

  requestFields(bound: BoundMethod): readonly string[] {
    let fields = this.#requestFields.get(bound.path);
    if (fields === undefined) {
      const made = [
        ":method",
        "POST",
        ":scheme",
        this.scheme,
        ":path",
        bound.path,
        ":authority",
        this.authority,
        "content-type",
        "application/grpc",
        "te",
        "trailers",
        "user-agent",
        USER_AGENT,
        "grpc-accept-encoding",
        ACCEPT_ENCODING,
      ];
      if (this.sendEncoding !== "identity") made.push("grpc-encoding", this.sendEncoding);
      fields = made;
      this.#requestFields.set(bound.path, made);
    }
    return fields;
  }

  schedule(call: ClientCall): void {
    const session = this.session;
    if (session instanceof NearwireError) {
      call.abandon(session);
      return;
    }
    this.#calls.add(call);
    if (this.#waitingHead === this.#waiting.length && session.canOpenStream) {
      call.open(session);
      return;
    }
    this.#waiting.push(call);
  }

  ended(call: ClientCall): void {
    this.#calls.delete(call);
  }

  #startWaiting(): void {
    const session = this.session;
    if (session instanceof NearwireError) return;
    while (this.#waitingHead < this.#waiting.length && session.canOpenStream) {
      const call = this.#waiting[this.#waitingHead++] as ClientCall;
      if (!call.done) call.open(session);
    }
    if (this.#waitingHead === this.#waiting.length) {
      this.#waiting = [];
      this.#waitingHead = 0;
    }
  }

  /** The server sent GOAWAY: no new calls here; the connection closes once its calls end. */
  #onGoAway(code: number): void {
    const session = this.session;
    if (session instanceof NearwireError) return;
    const error = new NearwireError(
      Code.Unavailable,
      code === H2Code.NO_ERROR
        ? "the server is closing this connection (GOAWAY)"
        : `the server ended the connection (GOAWAY ${code})`,
      { reason: code === H2Code.NO_ERROR ? "server-closing" : "peer-closed" },
    );
    this.lostError = error;
    this.session = error;
    for (let i = this.#waitingHead; i < this.#waiting.length; i++)
      (this.#waiting[i] as ClientCall).abandon(error);
    this.#waiting = [];
    this.#waitingHead = 0;
    this.#resolveClosed(error);
    const closeWhenIdle = (): void => {
      if (session.streamCount === 0) session.close(1000);
      else setTimeout(closeWhenIdle, 50).unref?.();
    };
    closeWhenIdle();
  }

  #lost(session: Http2Session, error: Error | undefined): void {
    const lost = this.#closedByUs
      ? closedByCaller()
      : new NearwireError(
          Code.Unavailable,
          `connection to the server was lost${error === undefined ? "" : `: ${error.message}`}`,
          {
            reason: "peer-closed",
            cause: error,
          },
        );
    this.lostError ??= lost;
    if (this.session === session) this.session = lost;
    for (const call of [...this.#calls]) call.abandon(this.lostError);
    this.#calls.clear();
    this.#waiting = [];
    this.#waitingHead = 0;
    this.#resolveClosed(this.#closedByUs ? undefined : lost);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async close(): Promise<void> {
    this.#closedByUs = true;
    const session = this.session;
    const error = closedByCaller();
    this.lostError ??= error;
    if (session instanceof NearwireError) {
      for (const call of [...this.#calls]) call.abandon(error);
      this.#resolveClosed(undefined);
      return;
    }
    this.session = error;
    for (const call of [...this.#calls]) call.abandon(error);
    this.#calls.clear();
    session.goAway(H2Code.NO_ERROR, "client closing", 0);
    session.close(1000);
    this.#resolveClosed(undefined);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, target: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new NearwireError(Code.Unavailable, `no connection to ${target} within ${ms} ms`)),
      ms,
    );
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
