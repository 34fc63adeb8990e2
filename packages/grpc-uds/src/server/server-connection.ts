/**
 * ServerConnection: one accepted connection of a grpc-uds server — its HTTP/2 session, and the
 * dispatch of each new stream to a {@link ServerCall} (or its refusal with a status).
 */
import { Code, type HandlerErrorHook, NearwireError, type Peer } from "@nearwire/core";
import type { ServedMethod } from "@nearwire/core/transport-kit";
import type { SocketReader } from "@nearwire/socket";
import { ACCEPT_ENCODING, encodingOf } from "../grpc/compression.js";
import { parseGrpcTimeout } from "../grpc/grpc-timeout.js";
import { BufferBudget, unfinishedMessageLimit } from "../grpc/message-reader.js";
import { appendStatus } from "../grpc/status-fields.js";
import { H2Code } from "../http2/frame.js";
import type { WritableSocket } from "../http2/frame-writer.js";
import type { H2Stream } from "../http2/h2-stream.js";
import { fieldValue } from "../http2/header-checks.js";
import { Http2Session, type SessionLimits } from "../http2/http2-session.js";
import { connectionPool } from "../message-pool.js";
import type { DrainGate } from "./drain-gate.js";
import { type CallHost, ServerCall } from "./server-call.js";

/** What a connection needs from its server. */
export interface ConnectionHost {
  readonly methods: ReadonlyMap<string, ServedMethod>;
  readonly gate: DrainGate;
  readonly maxMessageBytes: number;
  readonly limits: SessionLimits;
  readonly highWaterMarkBytes: number;
  readonly onHandlerError: HandlerErrorHook | undefined;
  /** The connection has closed. */
  connectionClosed(connection: ServerConnection): void;
}

export class ServerConnection implements CallHost {
  readonly session: Http2Session;
  readonly gate: DrainGate;
  readonly maxMessageBytes: number;
  readonly highWaterMarkBytes: number;
  readonly onHandlerError: HandlerErrorHook | undefined;
  readonly peer: Peer;
  readonly calls = new Set<ServerCall>();
  readonly budget: BufferBudget;
  readonly lendPool = connectionPool();
  readonly closed: Promise<void>;
  readonly #host: ConnectionHost;

  /** `reader`: the `SocketReader` the socket reads through, if any (see `Http2Session`). */
  constructor(socket: WritableSocket, host: ConnectionHost, peer: Peer, reader?: SocketReader) {
    this.#host = host;
    this.gate = host.gate;
    this.maxMessageBytes = host.maxMessageBytes;
    this.budget = new BufferBudget(unfinishedMessageLimit(host.maxMessageBytes));
    this.highWaterMarkBytes = host.highWaterMarkBytes;
    this.onHandlerError = host.onHandlerError;
    this.peer = peer;
    let onClosed!: () => void;
    this.closed = new Promise((resolve) => {
      onClosed = resolve;
    });
    this.session = new Http2Session(
      socket,
      "server",
      host.limits,
      {
        onStream: (stream, fields, endStream) => this.#onStream(stream, fields, endStream),
        onHeadersTooLarge: (stream) =>
          this.#refuse(
            stream,
            "application/grpc",
            new NearwireError(
              Code.ResourceExhausted,
              `request header list > maxHeaderListBytes ${host.limits.maxHeaderListBytes}`,
            ),
          ),
        onClose: () => {
          host.connectionClosed(this);
          onClosed();
        },
      },
      reader,
    );
    this.session.startKeepalive();
  }

  #onStream(stream: H2Stream, fields: string[], endStream: boolean): void {
    if (fieldValue(fields, ":method") !== "POST") {
      this.#httpError(stream, "405");
      return;
    }
    const contentType = fieldValue(fields, "content-type");
    if (contentType === undefined || !contentType.startsWith("application/grpc")) {
      this.#httpError(stream, "415");
      return;
    }
    if (this.gate.draining) {
      this.#refuse(stream, contentType, this.gate.refusal());
      return;
    }
    const path = fieldValue(fields, ":path") as string;
    const served = this.#host.methods.get(path);
    if (served === undefined) {
      this.#refuse(
        stream,
        contentType,
        new NearwireError(Code.Unimplemented, `unknown method ${path}`),
      );
      return;
    }
    const encodingName = fieldValue(fields, "grpc-encoding");
    const encoding = encodingOf(encodingName);
    if (encoding === undefined) {
      this.#refuse(
        stream,
        contentType,
        new NearwireError(
          Code.Unimplemented,
          `grpc-encoding ${encodingName} is not supported (${ACCEPT_ENCODING})`,
        ),
        ["grpc-accept-encoding", ACCEPT_ENCODING],
      );
      return;
    }
    const timeout = fieldValue(fields, "grpc-timeout");
    let timeoutMs: number | undefined;
    if (timeout !== undefined) {
      timeoutMs = parseGrpcTimeout(timeout);
      if (timeoutMs === undefined) {
        this.#refuse(
          stream,
          contentType,
          new NearwireError(Code.Internal, `malformed grpc-timeout ${timeout}`),
        );
        return;
      }
    }
    const call = new ServerCall(this, stream, served, fields, contentType, encoding, timeoutMs);
    call.start(endStream);
  }

  /**
   * Ends a new stream with an error status alone (trailers-only response). The stream is not
   * reset: what the client still sends of its request is read and dropped until it ends (a
   * RST_STREAM(NO_ERROR) racing the client's upload made curl report a framing error instead
   * of the status); such a stream counts against `maxConcurrentStreams` until then.
   */
  #refuse(stream: H2Stream, contentType: string, error: NearwireError, extra?: string[]): void {
    const fields = [":status", "200", "content-type", contentType];
    if (extra !== undefined) fields.push(...extra);
    appendStatus(fields, error, undefined);
    this.session.sendHeaders(stream, fields, true);
  }

  /** A request that is not gRPC at all: an HTTP status alone. */
  #httpError(stream: H2Stream, status: string): void {
    this.session.sendHeaders(stream, [":status", status], true);
  }

  /** The server closes: GOAWAY, then the socket once the peer is done (or after `lingerMs`). */
  goAway(): void {
    this.session.goAway(H2Code.NO_ERROR, "server closing");
    this.session.close(1000);
  }

  /** Ends every open call with `error` (its client sees that status), then closes. */
  abortCalls(error: NearwireError): void {
    for (const call of [...this.calls]) call.finish(error);
    this.goAway();
  }
}
