/**
 * ServerCall: one gRPC call on a server's HTTP/2 stream — the request's messages in, the
 * handler run, its messages and status out — and the handler's {@link HandlerContext}.
 *
 * Every end of a call goes through {@link ServerCall.finish} (reply, handler error, deadline,
 * server close) or {@link ServerCall.onAbort} (the peer reset the stream, the connection died):
 * after the first, later ones do nothing.
 */
import {
  Code,
  type HandlerContext,
  type HandlerErrorHook,
  type Metadata,
  NearwireError,
  type Peer,
} from "@nearwire/core";
import {
  type BufferPool,
  DeadlineTimer,
  handlerFailure,
  InboundStream,
  MessagePump,
  type ServedMethod,
} from "@nearwire/core/transport-kit";
import { ACCEPT_ENCODING, decompress, type Encoding } from "../grpc/compression.js";
import { appendMetadata, metadataOf } from "../grpc/grpc-metadata.js";
import {
  type BufferBudget,
  MESSAGE_PREFIX_BYTES,
  MessageReader,
  type MessageSink,
} from "../grpc/message-reader.js";
import { InPlaceSender, sendMessageBytes, whenWritable } from "../grpc/send-message.js";
import { appendStatus } from "../grpc/status-fields.js";
import { H2Code } from "../http2/frame.js";
import type { H2Stream, StreamListener } from "../http2/h2-stream.js";
import type { Http2Session } from "../http2/http2-session.js";
import { decodeError } from "./decode-error.js";
import type { DrainGate } from "./drain-gate.js";

/** What a call needs from its connection and server. */
export interface CallHost {
  readonly session: Http2Session;
  readonly gate: DrainGate;
  readonly maxMessageBytes: number;
  readonly peer: Peer;
  /** Bytes queued for the socket above which a streaming handler waits. */
  readonly highWaterMarkBytes: number;
  /** Bytes of unfinished request messages this connection may hold. */
  readonly budget: BufferBudget;
  /** Buffers of request messages lent back by handlers marked with `lendMessages`. */
  readonly lendPool: BufferPool;
  /** The calls open on this connection (the call adds and removes itself). */
  readonly calls: Set<ServerCall>;
  /** What to do with a handler's error that is not a NearwireError. */
  readonly onHandlerError: HandlerErrorHook | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: handlers of the four kinds, one signature.
type AnyHandler = (input: any, ctx: HandlerContext) => any;

/** Trailers of a call that succeeded with none of its own (shared). */
const OK_TRAILERS: readonly string[] = ["grpc-status", "0"];
const RESPONSE_HEADERS = new Map<string, readonly string[]>();

/**
 * `:status 200`, the request's content type and, when responses are compressed (the request's
 * own encoding, as grpc-go answers), `grpc-encoding` (the list is shared per pair).
 */
function responseHeaders(contentType: string, encoding: Encoding): readonly string[] {
  const key = encoding === "identity" ? contentType : `${contentType}\n${encoding}`;
  let fields = RESPONSE_HEADERS.get(key);
  if (fields === undefined) {
    const made = [":status", "200", "content-type", contentType];
    if (encoding !== "identity")
      made.push("grpc-encoding", encoding, "grpc-accept-encoding", ACCEPT_ENCODING);
    fields = made;
    // Bounded: a peer choosing content types cannot grow it without limit.
    if (RESPONSE_HEADERS.size < 64) RESPONSE_HEADERS.set(key, fields);
  }
  return fields;
}

export class ServerCall implements StreamListener, HandlerContext, MessageSink {
  readonly method: string;
  readonly deadline: number | undefined;
  /** The call's timeout as the client sent it (`grpc-timeout`), ms. */
  readonly #timeoutMs: number | undefined;
  readonly #host: CallHost;
  readonly #stream: H2Stream;
  readonly #served: ServedMethod;
  readonly #fields: string[];
  readonly #contentType: string;
  readonly #encoding: Encoding;
  readonly #reader: MessageReader;
  #metadata: Metadata | undefined;
  #trailers: Metadata | undefined;
  #responseHeaders: Metadata | undefined;
  #controller: AbortController | undefined;
  #timer: DeadlineTimer | undefined;
  /** The status is decided (sent, or the stream is gone): nothing more goes out. */
  #finished = false;
  /** Unary and server-streaming: the request message, once read. */
  #request: Uint8Array | undefined;
  #requests = 0;
  /** Client-streaming and bidi: the request stream the handler iterates. */
  #inbound: InboundStream<unknown> | undefined;
  /** Bytes received for the request stream and not yet credited back (see {@link #credit}). */
  #owed = 0;

  /**
   * Wire bytes (prefix and body) of each message waiting in #inbound, oldest first, and their
   * sum: the part of #owed a slow handler holds back.
   */
  readonly #queuedSizes: number[] = [];
  #queuedHead = 0;
  #queuedBytes = 0;
  #writable: (() => void) | undefined;
  /** Why the call was cut short (peer reset, deadline, server close), once it was. */
  #cancelled: NearwireError | undefined;
  /** Sends the responses encoded in place (null: the codec cannot; undefined: not asked yet). */
  #inPlace: InPlaceSender | null | undefined;

  constructor(
    host: CallHost,
    stream: H2Stream,
    served: ServedMethod,
    fields: string[],
    contentType: string,
    encoding: Encoding,
    timeoutMs: number | undefined,
  ) {
    this.#host = host;
    this.#stream = stream;
    this.#served = served;
    this.#fields = fields;
    this.#contentType = contentType;
    this.#encoding = encoding;
    this.method = served.bound.path;
    this.#reader = new MessageReader(host.maxMessageBytes, "request", host.budget);
    host.gate.enter();
    host.calls.add(this);
    stream.listener = this;
    this.#timeoutMs = timeoutMs;
    if (timeoutMs !== undefined) {
      this.deadline = Date.now() + timeoutMs;
      this.#timer = new DeadlineTimer(Math.min(Math.ceil(timeoutMs), 0xffffffff), () =>
        this.#expire(),
      );
    } else {
      this.deadline = undefined;
    }
  }

  // --- HandlerContext ----------------------------------------------------------------------

  get metadata(): Metadata {
    this.#metadata ??= metadataOf(this.#fields);
    return this.#metadata;
  }

  get trailers(): Metadata {
    this.#trailers ??= {};
    return this.#trailers;
  }

  get responseHeaders(): Metadata {
    this.#responseHeaders ??= {};
    return this.#responseHeaders;
  }

  get peer(): Peer {
    return this.#host.peer;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#cancelled !== undefined) this.#controller.abort(this.#cancelled);
    }
    return this.#controller.signal;
  }

  // --- starting ----------------------------------------------------------------------------

  /** Starts the call: streaming requests run the handler now, others once the request is in. */
  start(endStream: boolean): void {
    const kind = this.#served.bound.kind;
    if (kind === "client_streaming" || kind === "bidi_streaming") {
      const inbound = new InboundStream<unknown>();
      inbound.bind(
        () => this.#taken(),
        () => {},
      );
      if (this.#served.lends) {
        // The handler is done with a message when it asks for the next: a message collected
        // from several DATA frames goes back to the connection's pool then.
        const pool = this.#host.lendPool;
        this.#reader.lendFrom(pool);
        inbound.lend((frame) => pool.give(frame));
      }
      this.#inbound = inbound;
      if (endStream) inbound.end();
      this.#run(inbound);
      return;
    }
    if (endStream) this.#requestComplete();
  }

  // --- StreamListener ----------------------------------------------------------------------

  onHeaders(_stream: H2Stream, _fields: string[], endStream: boolean): void {
    // Request trailers carry nothing for gRPC; they only end the request.
    if (endStream) this.#inputEnded();
  }

  onData(stream: H2Stream, data: Uint8Array, endStream: boolean): void {
    if (this.#finished) {
      this.#host.session.consume(stream, data.byteLength);
      return;
    }
    try {
      this.#reader.push(data, this);
    } catch (err) {
      this.#host.session.consume(stream, data.byteLength);
      this.finish(err);
      return;
    }
    if (this.#inbound === undefined) this.#host.session.consume(stream, data.byteLength);
    else {
      this.#owed += data.byteLength;
      this.#credit();
    }
    if (endStream) this.#inputEnded();
  }

  onAbort(_stream: H2Stream, code: number, _byPeer: boolean, message: string): void {
    if (this.#finished) {
      this.#inbound?.fail(this.#cancelError());
      return;
    }
    this.#finished = true;
    this.#timer?.clear();
    const error =
      code === H2Code.CANCEL || code === H2Code.NO_ERROR
        ? this.#cancelError()
        : new NearwireError(Code.Canceled, `${this.method}: ${message}`);
    this.#cancelled = error;
    this.#reader.release();
    this.#controller?.abort(error);
    this.#inbound?.fail(error);
    this.#writable?.();
    this.#host.gate.leave();
    this.#host.calls.delete(this);
  }

  onWritable(): void {
    const wake = this.#writable;
    this.#writable = undefined;
    wake?.();
  }

  // --- request ---------------------------------------------------------------------------

  /** A request message (MessageSink): kept (unary, server streaming) or decoded and queued. */
  onMessage(compressed: boolean, bytes: Uint8Array, pooled: boolean): void {
    if (this.#inbound !== undefined) {
      this.#onStreamed(compressed, bytes, pooled);
      return;
    }
    this.#requests++;
    if (this.#requests > 1)
      throw new NearwireError(Code.Internal, `${this.method} takes one request message; got more`);
    this.#request = compressed ? this.#inflate(bytes) : bytes;
  }

  #onStreamed(compressed: boolean, bytes: Uint8Array, pooled: boolean): void {
    if (compressed) {
      const message = this.#inflate(bytes);
      if (pooled) this.#host.lendPool.give(bytes); // decoded from the inflated copy
      const value = this.#decode(message);
      this.#queue(bytes.byteLength);
      (this.#inbound as InboundStream<unknown>).push(value);
      return;
    }
    // A pooled message is lent and is its own until the handler is done with it.
    const value = this.#decode(bytes, pooled);
    this.#queue(bytes.byteLength);
    (this.#inbound as InboundStream<unknown>).push(value, pooled ? bytes : undefined);
  }

  /** A message of `n` bytes goes into #inbound: its wire bytes are held back until taken. */
  #queue(n: number): void {
    const size = MESSAGE_PREFIX_BYTES + n;
    this.#queuedSizes.push(size);
    this.#queuedBytes += size;
  }

  /** The handler took the oldest message of #inbound: its bytes may be credited now. */
  #taken(): void {
    const sizes = this.#queuedSizes;
    if (this.#queuedHead < sizes.length) {
      this.#queuedBytes -= sizes[this.#queuedHead++] as number;
      if (this.#queuedHead === sizes.length) {
        sizes.length = 0;
        this.#queuedHead = 0;
      }
    }
    this.#credit();
  }

  #inflate(bytes: Uint8Array): Uint8Array {
    return decompress(this.#encoding, bytes, this.#host.maxMessageBytes, "request");
  }

  /** `owned`: the bytes are the message's own (lent), and the codec may decode into them. */
  #decode(bytes: Uint8Array, owned = false): unknown {
    const codec = this.#served.bound.input;
    try {
      if (owned && codec.decodeOwnedRange !== undefined)
        return codec.decodeOwnedRange(bytes, 0, bytes.byteLength);
      return codec.decode(bytes);
    } catch (err) {
      throw decodeError(err, this.#served.bound.codec);
    }
  }

  /**
   * Credits the stream's received bytes back except those of messages waiting in #inbound: a
   * slow handler stops the client once a window of messages waits for it, a handler that keeps
   * up lets the client send on while it works through what arrived (crediting only once
   * nothing waited made the two take turns), and a message larger than the window still
   * arrives whole (its partial bytes are credited as they come).
   */
  #credit(): void {
    if (this.#inbound === undefined) return;
    const n = this.#owed - this.#queuedBytes;
    if (n <= 0) return;
    this.#owed -= n;
    this.#host.session.consume(this.#stream, n);
  }

  #inputEnded(): void {
    if (this.#finished) return;
    if (this.#reader.partial) {
      this.finish(
        new NearwireError(Code.Internal, `${this.method}: request ended inside a message`),
      );
      return;
    }
    if (this.#inbound !== undefined) this.#inbound.end();
    else this.#requestComplete();
  }

  #requestComplete(): void {
    const bytes = this.#request;
    if (bytes === undefined) {
      this.finish(new NearwireError(Code.Internal, `${this.method}: request without a message`));
      return;
    }
    this.#request = undefined;
    let request: unknown;
    try {
      request = this.#decode(bytes);
    } catch (err) {
      this.finish(err);
      return;
    }
    this.#run(request);
  }

  // --- running the handler ---------------------------------------------------------------

  #run(input: unknown): void {
    const kind = this.#served.bound.kind;
    const handler = this.#served.impl as AnyHandler;
    let result: unknown;
    try {
      result = handler(input, this);
    } catch (err) {
      this.finish(err);
      this.#handlerDone();
      return;
    }
    if (kind === "unary" || kind === "client_streaming") {
      if (result !== null && typeof (result as Promise<unknown>)?.then === "function") {
        (result as Promise<unknown>).then(
          (value) => {
            this.#reply(value);
            this.#handlerDone();
          },
          (err: unknown) => {
            this.finish(err);
            this.#handlerDone();
          },
        );
      } else {
        this.#reply(result);
        this.#handlerDone();
      }
      return;
    }
    this.#writeAll(result as AsyncIterable<unknown>);
  }

  /**
   * The handler returned (its reply, if any, is encoded): a lending handler then holds none of
   * its request messages, and the last one's buffer goes back to the pool as well.
   */
  #handlerDone(): void {
    if (this.#served.lends) this.#inbound?.consumerDone();
  }

  #reply(value: unknown): void {
    if (this.#finished) return;
    try {
      this.#sendMessage(value);
    } catch (err) {
      this.finish(err);
      return;
    }
    this.finish();
  }

  /**
   * Sends what a streaming handler yields, waiting while the stream or socket is backed up:
   * core's MessagePump, so a source with `[nextNow]()` gives the messages it has at hand with
   * no promise (a `for await` made two or three per message). HTTP/2 flow control is the
   * stream's `pending` tail, so there is no credit to take.
   */
  #writeAll(items: AsyncIterable<unknown>): void {
    new MessagePump(items, undefined, {
      ended: () => this.#finished,
      send: (item) => {
        this.#sendMessage(item);
        return (
          this.#stream.pending === undefined &&
          this.#host.session.writer.queuedBytes < this.#host.highWaterMarkBytes
        );
      },
      drained: () => this.#whenWritable(),
      finished: () => {
        this.finish();
        this.#handlerDone();
      },
      failed: (err) => {
        this.finish(err);
        this.#handlerDone();
      },
    }).start();
  }

  #whenWritable(): Promise<void> {
    return whenWritable(this.#host.session, this.#stream, this.#host.highWaterMarkBytes, {
      done: () => this.#finished,
      park: (wake) => {
        this.#writable = wake;
      },
    });
  }

  #sendHeadersOnce(): void {
    const stream = this.#stream;
    if (stream.headersSent) return;
    let fields = responseHeaders(this.#contentType, this.#encoding);
    if (this.#responseHeaders !== undefined) {
      const withOwn = fields.slice();
      appendMetadata(withOwn, this.#responseHeaders);
      fields = withOwn;
    }
    this.#host.session.sendHeaders(stream, fields, false);
  }

  #sendMessage(value: unknown): void {
    this.#sendHeadersOnce();
    const session = this.#host.session;
    const codec = this.#served.bound.output;
    if (this.#encoding === "identity") {
      this.#inPlace ??= InPlaceSender.for(codec, this.#host.maxMessageBytes) ?? null;
      if (this.#inPlace?.trySend(session, this.#stream, value, false) === true) return;
    }
    const encoded = codec.encode(value);
    if (this.#inPlace) this.#inPlace.learned(encoded.byteLength);
    this.#sendEncoded(encoded);
  }

  #sendEncoded(encoded: Uint8Array): void {
    const max = this.#host.maxMessageBytes;
    if (encoded.byteLength > max)
      throw new NearwireError(
        Code.ResourceExhausted,
        `response ${encoded.byteLength} B > maxMessageBytes ${max}`,
        {
          reason: "message-too-large",
        },
      );
    sendMessageBytes(this.#host.session, this.#stream, encoded, this.#encoding);
  }

  // --- ending ------------------------------------------------------------------------------

  /**
   * The one place a call's status is decided: sends the trailers (OK, or the error's code,
   * message, reason and metadata) — as a trailers-only response when no message went out — and
   * stops the deadline. Later calls do nothing.
   */
  finish(outcome?: unknown): void {
    if (this.#finished) return;
    let error: unknown =
      outcome === undefined || outcome instanceof NearwireError
        ? outcome
        : handlerFailure(outcome, this, this.#host.onHandlerError);
    // Response headers go in a HEADERS frame of their own, never into a trailers-only response,
    // so that the client reads them as headers, as on every transport.
    if (this.#responseHeaders !== undefined && !this.#stream.headersSent) {
      try {
        this.#sendHeadersOnce();
      } catch (err) {
        error ??= err;
      }
    }
    if (error === undefined && this.#trailers !== undefined) {
      try {
        appendMetadata([], this.#trailers);
      } catch (err) {
        error = err;
      }
    }
    this.#finished = true;
    this.#timer?.clear();
    this.#reader.release();
    this.#host.gate.leave();
    this.#host.calls.delete(this);
    const stream = this.#stream;
    const session = this.#host.session;
    let fields: readonly string[];
    if (error === undefined && this.#trailers === undefined && stream.headersSent) {
      fields = OK_TRAILERS;
    } else {
      const list = stream.headersSent ? [] : responseHeaders(this.#contentType, "identity").slice();
      fields = list;
      if (error === undefined) appendStatus(list, undefined, this.#trailers);
      else {
        const err = NearwireError.from(error);
        this.#inbound?.fail(
          new NearwireError(Code.Canceled, `${this.method} has ended: ${err.message}`),
        );
        appendStatus(list, err, this.#trailers);
        this.#cancelled = err;
        this.#controller?.abort(err);
      }
    }
    session.sendHeaders(stream, fields, true);
    // The client may still be sending: tell it to stop (RFC 9113 §8.1).
    if (!stream.remoteEnded && stream.pending === undefined)
      session.resetStream(stream, H2Code.NO_ERROR);
    this.#writable?.();
  }

  /** The deadline passed: the handler's signal aborts and the client gets DEADLINE_EXCEEDED. */
  #expire(): void {
    this.#timer = undefined;
    if (this.#finished) return;
    this.finish(this.#deadlineError());
  }

  /** DEADLINE_EXCEEDED in the words every transport's server uses. */
  #deadlineError(): NearwireError {
    return new NearwireError(
      Code.DeadlineExceeded,
      `deadline of ${Math.ceil(this.#timeoutMs ?? 0)} ms exceeded`,
    );
  }

  /** The error a cancelled call's handler sees: DEADLINE_EXCEEDED past the deadline, else CANCELLED. */
  #cancelError(): NearwireError {
    if (this.deadline !== undefined && Date.now() >= this.deadline) return this.#deadlineError();
    return new NearwireError(Code.Canceled, `${this.method} cancelled by the client`);
  }
}
