/**
 * ClientCall: one gRPC call from the client's side on an HTTP/2 stream — the request HEADERS
 * and messages out, the response headers, messages and trailers in, and its end.
 *
 * {@link ClientCall.settle} is the one place a call ends (status, reset, deadline, signal,
 * lost connection, local failure); later ends do nothing.
 */
import {
  type CallOptions,
  Code,
  type Metadata,
  NearwireError,
  type NearwireErrorOptions,
} from "@nearwire/core";
import { CODEC_TRAILER } from "@nearwire/core/protocol";
import {
  type BoundMethod,
  type BufferPool,
  DeadlineTimer,
  type InboundStream,
  isErrorReason,
  MessagePump,
  messageOf,
  withServerCodec,
} from "@nearwire/core/transport-kit";
import { decompress, type Encoding, encodingOf } from "../grpc/compression.js";
import { appendMetadata, metadataOf, REASON_TRAILER } from "../grpc/grpc-metadata.js";
import { codeOfH2Error, codeOfHttpStatus, percentDecode } from "../grpc/grpc-status.js";
import { encodeGrpcTimeout } from "../grpc/grpc-timeout.js";
import { type BufferBudget, MessageReader, type MessageSink } from "../grpc/message-reader.js";
import { InPlaceSender, sendMessageBytes, whenWritable } from "../grpc/send-message.js";
import { H2Code } from "../http2/frame.js";
import type { H2Stream, StreamListener } from "../http2/h2-stream.js";
import { fieldValue } from "../http2/header-checks.js";
import type { Http2Session } from "../http2/http2-session.js";

/** What a call needs from its connection. */
export interface CallSite {
  /** The session, or the error new calls fail with once the connection is gone. */
  readonly session: Http2Session | NearwireError;
  readonly maxMessageBytes: number;
  /** Bytes of unfinished response messages this connection may hold. */
  readonly budget: BufferBudget;
  /** Where lent response messages' buffers come from and go back to (`lendMessages`). */
  readonly lendPool: BufferPool;
  readonly highWaterMarkBytes: number;
  /** `:scheme` and `:authority` of every request. */
  readonly scheme: string;
  readonly authority: string;
  /** Compression of request messages. */
  readonly sendEncoding: Encoding;
  /** The request fields of a call of `bound` without metadata or deadline (shared, not to be changed). */
  requestFields(bound: BoundMethod): readonly string[];
  /** Starts `call` now or once the server's stream limit lets it. */
  schedule(call: ClientCall): void;
  /** The call ended (it was counted by {@link schedule}). */
  ended(call: ClientCall): void;
  /** Why a stream was cut when the connection went away (set once it has). */
  readonly lostError: NearwireError | undefined;
}

/** How the call's response is delivered: one value (unary, client stream) or a stream. */
type Sink =
  | { kind: "one"; resolve: (value: unknown) => void; reject: (err: NearwireError) => void }
  | { kind: "stream"; inbound: InboundStream<unknown> };

export class ClientCall implements StreamListener, MessageSink {
  readonly #site: CallSite;
  readonly #bound: BoundMethod;
  readonly #sink: Sink;
  readonly #fields: readonly string[];
  readonly #reader: MessageReader;
  #stream: H2Stream | undefined;
  #done = false;
  #deadline: DeadlineTimer | undefined;
  #signal: AbortSignal | undefined;
  #onAbort: (() => void) | undefined;
  /** Unary request message, or the request stream. */
  #request: unknown;
  #requests: AsyncIterable<unknown> | Iterable<unknown> | undefined;
  #response: unknown;
  /** Sends the requests encoded in place (null: the codec cannot; undefined: not asked yet). */
  #inPlace: InPlaceSender | null | undefined;
  #responses = 0;
  #encoding: Encoding = "identity";
  /** The response's first HEADERS arrived. */
  #headersSeen = false;
  /** The caller's `onHeader` / `onTrailer`, when given. */
  #onHeader: ((headers: Metadata) => void) | undefined;
  #onTrailer: ((trailers: Metadata) => void) | undefined;
  #writable: (() => void) | undefined;
  /** Bytes received for the response stream and not yet credited back (see {@link #credit}). */
  #owed = 0;

  constructor(site: CallSite, bound: BoundMethod, options: CallOptions | undefined, sink: Sink) {
    this.#site = site;
    this.#bound = bound;
    this.#sink = sink;
    this.#reader = new MessageReader(site.maxMessageBytes, "response", site.budget);
    const timeoutMs = options?.timeoutMs;
    this.#onHeader = options?.onHeader;
    this.#onTrailer = options?.onTrailer;
    // The fields of a call without metadata or deadline are the same for every call of the
    // method: one array, shared (HPACK copies nothing of it).
    const shared = site.requestFields(bound);
    if (timeoutMs !== undefined || options?.metadata !== undefined) {
      const fields = shared.slice();
      if (timeoutMs !== undefined)
        fields.push("grpc-timeout", encodeGrpcTimeout(Math.min(timeoutMs, 0xffffffff)));
      if (options?.metadata !== undefined) appendMetadata(fields, options.metadata);
      this.#fields = fields;
    } else {
      this.#fields = shared;
    }
    if (sink.kind === "stream" && options?.lendMessages === true) {
      // The caller is done with a response when it asks for the next: a message collected from
      // several DATA frames (or one of 4 KiB and more) goes back to the connection's pool then.
      const pool = site.lendPool;
      this.#reader.lendFrom(pool);
      sink.inbound.lend((frame) => pool.give(frame));
    }
    if (sink.kind === "stream") {
      sink.inbound.bind(
        () => this.#credit(),
        () =>
          this.cancel(new NearwireError(Code.Canceled, "response stream abandoned by the caller")),
      );
    }
    if (timeoutMs !== undefined) {
      this.#deadline = new DeadlineTimer(Math.min(Math.ceil(timeoutMs), 0xffffffff), () =>
        this.cancel(
          new NearwireError(Code.DeadlineExceeded, `deadline of ${timeoutMs} ms exceeded`),
        ),
      );
    }
    const signal = options?.signal;
    if (signal !== undefined) {
      this.#signal = signal;
      this.#onAbort = () =>
        this.cancel(
          new NearwireError(Code.Canceled, "call aborted by the caller", { cause: signal.reason }),
        );
      signal.addEventListener("abort", this.#onAbort, { once: true });
    }
  }

  /**
   * Sends `input` once the stream opens: by the method's kind, the one request with END_STREAM
   * (unary, server streaming) or the request stream (client streaming, bidi).
   */
  start(input: unknown): void {
    const kind = this.#bound.kind;
    if (kind === "client_streaming" || kind === "bidi_streaming")
      this.#requests = input as AsyncIterable<unknown> | Iterable<unknown>;
    else this.#request = input;
    this.#site.schedule(this);
  }

  get done(): boolean {
    return this.#done;
  }

  /** The stream is open: send the request (called by the connection). */
  open(session: Http2Session): void {
    if (this.#done) return;
    const stream = session.openStream(this);
    this.#stream = stream;
    const requests = this.#requests;
    if (requests === undefined) {
      session.sendHeaders(stream, this.#fields, false);
      const request = this.#request;
      this.#request = undefined;
      try {
        this.#sendMessage(session, stream, request, true);
      } catch (err) {
        this.cancel(NearwireError.from(err, Code.Internal));
      }
      return;
    }
    this.#requests = undefined;
    session.sendHeaders(stream, this.#fields, false);
    this.#writeAll(session, stream, requests);
  }

  #sendMessage(session: Http2Session, stream: H2Stream, value: unknown, endStream: boolean): void {
    const codec = this.#bound.input;
    const max = this.#site.maxMessageBytes;
    if (this.#site.sendEncoding === "identity") {
      this.#inPlace ??= InPlaceSender.for(codec, max) ?? null;
      if (this.#inPlace?.trySend(session, stream, value, endStream) === true) return;
    }
    let bytes: Uint8Array;
    try {
      bytes = codec.encode(value);
    } catch (cause) {
      if (cause instanceof NearwireError) throw cause;
      throw new NearwireError(Code.Internal, `request encode failed: ${messageOf(cause)}`, {
        cause,
        reason: "encode-failed",
      });
    }
    if (bytes.byteLength > max)
      throw new NearwireError(
        Code.ResourceExhausted,
        `request ${bytes.byteLength} B > maxMessageBytes ${max}`,
        {
          reason: "message-too-large",
        },
      );
    if (this.#inPlace) this.#inPlace.learned(bytes.byteLength);
    sendMessageBytes(session, stream, bytes, this.#site.sendEncoding, endStream);
  }

  /**
   * Sends a streaming call's requests: core's MessagePump, so a source with `[nextNow]()` (a
   * transfer's file source) gives the messages it has at hand with no promise. HTTP/2 flow
   * control is the stream's `pending` tail, so there is no credit to take.
   */
  #writeAll(
    session: Http2Session,
    stream: H2Stream,
    requests: AsyncIterable<unknown> | Iterable<unknown>,
  ): void {
    new MessagePump(requests, undefined, {
      ended: () => this.#done || stream.localEnded,
      send: (request) => {
        this.#sendMessage(session, stream, request, false);
        return (
          stream.pending === undefined && session.writer.queuedBytes < this.#site.highWaterMarkBytes
        );
      },
      drained: () => this.#whenWritable(session, stream),
      finished: () => {
        if (!this.#done && !stream.localEnded) session.sendData(stream, EMPTY, 0, 0, true);
      },
      failed: (err) => {
        if (this.#done) return;
        const e = NearwireError.from(err, Code.Canceled);
        this.cancel(
          e.reason === "message-too-large" || e.reason === "encode-failed"
            ? e
            : new NearwireError(e.code, `request stream failed: ${e.message}`, { cause: err }),
        );
      },
    }).start();
  }

  #whenWritable(session: Http2Session, stream: H2Stream): Promise<void> {
    return whenWritable(session, stream, this.#site.highWaterMarkBytes, {
      done: () => this.#done,
      park: (wake) => {
        this.#writable = wake;
      },
    });
  }

  // --- StreamListener ----------------------------------------------------------------------

  onHeaders(_stream: H2Stream, fields: string[], endStream: boolean): void {
    if (this.#done) return;
    if (!this.#headersSeen) {
      this.#headersSeen = true;
      const status = fieldValue(fields, ":status");
      if (status !== "200") {
        // Not a gRPC response (a proxy or an HTTP server): its HTTP status says what happened.
        const s = Number(status);
        const grpcStatus = fieldValue(fields, "grpc-status");
        if (grpcStatus === undefined || !endStream) {
          this.#fail(
            new NearwireError(
              codeOfHttpStatus(s),
              `HTTP status ${status} from the server (not gRPC)`,
            ),
          );
          return;
        }
      }
      const contentType = fieldValue(fields, "content-type");
      if (
        !endStream &&
        (contentType === undefined || !contentType.startsWith("application/grpc"))
      ) {
        this.#fail(
          new NearwireError(Code.Unknown, `response content-type ${contentType} is not gRPC`),
        );
        return;
      }
      const encoding = encodingOf(fieldValue(fields, "grpc-encoding"));
      if (encoding === undefined) {
        this.#fail(
          new NearwireError(
            Code.Internal,
            `response grpc-encoding ${fieldValue(fields, "grpc-encoding")} is not supported`,
          ),
        );
        return;
      }
      this.#encoding = encoding;
      // A trailers-only response has no headers of its own: they are all trailers.
      this.#onHeader?.(endStream ? {} : metadataOf(fields));
      if (this.#done || !endStream) return;
    }
    if (this.#reader.partial) {
      this.#fail(new NearwireError(Code.Internal, "response ended inside a message"));
      return;
    }
    this.#onStatus(fields);
  }

  onData(_stream: H2Stream, data: Uint8Array, _endStream: boolean): void {
    if (this.#done) return;
    try {
      this.#reader.push(data, this);
    } catch (err) {
      this.cancel(NearwireError.from(err, Code.Internal));
      return;
    }
    this.#owed += data.byteLength;
    this.#credit();
  }

  onAbort(_stream: H2Stream, code: number, byPeer: boolean, message: string): void {
    if (this.#done) return;
    if (code === -1) {
      this.#settle(
        this.#site.lostError ??
          new NearwireError(Code.Unavailable, "connection to the server was lost", {
            reason: "peer-closed",
          }),
      );
      return;
    }
    if (code === H2Code.REFUSED_STREAM) {
      this.#settle(
        new NearwireError(Code.Unavailable, `the server did not process the call: ${message}`),
      );
      return;
    }
    const why = byPeer ? message : `the server broke the HTTP/2 rules: ${message}`;
    this.#settle(new NearwireError(codeOfH2Error(code), why));
  }

  onWritable(): void {
    const wake = this.#writable;
    this.#writable = undefined;
    wake?.();
  }

  /** A response message (MessageSink). */
  onMessage(compressed: boolean, raw: Uint8Array, pooled: boolean): void {
    const bytes = compressed
      ? decompress(this.#encoding, raw, this.#site.maxMessageBytes, "response")
      : raw;
    // Decoded from the inflated copy: the pooled bytes are free at once.
    if (pooled && compressed) this.#site.lendPool.give(raw);
    const output = this.#bound.output;
    // A pooled message into a stream is lent, and is its own until the caller is done with it.
    const owned = pooled && !compressed && this.#sink.kind === "stream";
    let value: unknown;
    try {
      value =
        owned && output.decodeOwnedRange !== undefined
          ? output.decodeOwnedRange(bytes, 0, bytes.byteLength)
          : output.decode(bytes);
    } catch (cause) {
      throw new NearwireError(Code.Internal, `response decode failed: ${messageOf(cause)}`, {
        cause,
        reason: "decode-failed",
      });
    }
    const sink = this.#sink;
    if (sink.kind === "stream") {
      sink.inbound.push(value, pooled && !compressed ? raw : undefined);
      return;
    }
    this.#responses++;
    if (this.#responses > 1)
      throw new NearwireError(Code.Internal, `${this.#bound.path} answered more than one message`);
    this.#response = value;
  }

  /**
   * Credits the stream's received bytes back while the caller keeps up (nothing waits in the
   * inbound stream): a slow consumer stops the server after one window, and a message larger
   * than the window still arrives whole.
   */
  #credit(): void {
    const stream = this.#stream;
    const sink = this.#sink;
    if (
      this.#owed === 0 ||
      stream === undefined ||
      (sink.kind === "stream" && sink.inbound.buffered > 0)
    )
      return;
    const n = this.#owed;
    this.#owed = 0;
    this.#session()?.consume(stream, n);
  }

  #session(): Http2Session | undefined {
    const s = this.#site.session;
    return s instanceof NearwireError ? undefined : s;
  }

  /** The trailers (or a trailers-only response): the call's status. */
  #onStatus(fields: string[]): void {
    const statusText = fieldValue(fields, "grpc-status");
    const code = statusText === undefined ? Number.NaN : Number(statusText);
    if (code === 0) {
      if (this.#onTrailer !== undefined) {
        const { [CODEC_TRAILER]: _, ...trailers } = metadataOf(fields);
        this.#onTrailer(trailers);
        if (this.#done) return;
      }
      const sink = this.#sink;
      if (sink.kind === "one" && this.#responses !== 1) {
        this.#settle(
          new NearwireError(
            Code.Unimplemented,
            `${this.#bound.path} answered OK without a message`,
          ),
        );
        return;
      }
      this.#settle(undefined);
      return;
    }
    if (!Number.isInteger(code) || code < 0 || code > 16) {
      this.#settle(new NearwireError(Code.Unknown, `missing or invalid grpc-status ${statusText}`));
      return;
    }
    const reasonText = fieldValue(fields, REASON_TRAILER);
    const metadata: Metadata = metadataOf(fields);
    const opts: NearwireErrorOptions = { metadata };
    const reason = reasonOf(reasonText, code);
    if (reason !== undefined) opts.reason = reason;
    const message = percentDecode(fieldValue(fields, "grpc-message") ?? "");
    const error = withServerCodec(
      new NearwireError(code as Code, message, opts),
      this.#bound.codec,
    );
    this.#onTrailer?.(error.metadata ?? {});
    this.#settle(error);
  }

  /** The caller gives up (signal, deadline, abandoned stream, local failure): reset and end. */
  cancel(error: NearwireError): void {
    if (this.#done) return;
    const stream = this.#stream;
    const session = this.#session();
    if (stream !== undefined && session !== undefined) session.resetStream(stream, H2Code.CANCEL);
    this.#settle(error);
  }

  /** A response that breaks gRPC's rules: reset the stream and fail. */
  #fail(error: NearwireError): void {
    this.cancel(error);
  }

  /** The one end of every call. */
  #settle(error: NearwireError | undefined): void {
    if (this.#done) return;
    this.#done = true;
    this.#deadline?.clear();
    this.#reader.release();
    if (this.#onAbort !== undefined) this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#writable?.();
    this.#site.ended(this);
    const sink = this.#sink;
    if (sink.kind === "one") {
      if (error === undefined) sink.resolve(this.#response);
      else sink.reject(error);
    } else if (error === undefined) sink.inbound.end();
    else sink.inbound.fail(error, true);
    this.#response = undefined;
  }

  /** Ends a call that never got a stream (connection gone, or closed by the client). */
  abandon(error: NearwireError): void {
    this.#settle(error);
  }
}

const EMPTY = new Uint8Array(0);

/** A `nearwire-reason` trailer read off the wire; RESOURCE_EXHAUSTED without one is a size limit. */
function reasonOf(text: string | undefined, code: number) {
  if (text !== undefined && text.length > 0) return isErrorReason(text) ? text : undefined;
  if (text === undefined && code === Code.ResourceExhausted) return "message-too-large" as const;
  return undefined;
}
