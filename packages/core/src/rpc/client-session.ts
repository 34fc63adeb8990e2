/** The client side of the RPC engine over one Channel (PROTOCOL.md section 5). */
import type { Channel } from "../channel.js";
import { Code } from "../code.js";
import type { MessageCodec } from "../codec.js";
import { FrameType } from "../frame-type.js";
import { type ErrorReason, NearwireError, type NearwireErrorOptions } from "../nearwire-error.js";
import type { CallOptions, Metadata } from "../transport.js";
import { type BoundMethod, decodeChecked, encodeChecked } from "./bound-method.js";
import { DeadlineTimer } from "./deadline-timer.js";
import {
  CODEC_TRAILER,
  decodeHeaders,
  decodeStatus,
  encodeCallId,
  encodeCancel,
  encodeRequest,
  FLAG_END_STREAM,
  FLAG_TAKES_HEADERS,
  isOkStatusWithMessage,
  REASON_TRAILER,
  readCallId,
  readU32,
  STATUS_HEAD_BYTES,
} from "./envelope.js";
import { InboundCredit } from "./inbound-credit.js";
import { InboundStream } from "./inbound-stream.js";
import { MessagePump } from "./message-pump.js";
import { CALL_FINISHED, type OutboundCredit } from "./outbound-credit.js";
import { withServerCodec } from "./server-codec.js";
import { protocolError, Session } from "./session.js";

/** Client-side state of one call. One shape for every kind, so the engine's code stays monomorphic. */
class ClientCall {
  /** Unary and client-streaming: settle the returned promise. */
  resolve: ((value: unknown) => void) | undefined = undefined;
  reject: ((err: NearwireError) => void) | undefined = undefined;
  /** Streamed responses (server-streaming, bidi). */
  inbound: InboundStream<unknown> | undefined = undefined;
  /** The last MESSAGE seen on a unary or client-streaming call (peers may send it apart from STATUS). */
  last: unknown = undefined;
  hasLast = false;
  /** Flow control of the streamed responses (server-streaming, bidi). */
  inCredit: InboundCredit | undefined = undefined;
  /** The caller lends the streamed responses' buffers back (`CallOptions.lendMessages`). */
  lends = false;
  credit: OutboundCredit | undefined = undefined;
  deadline: DeadlineTimer | undefined = undefined;
  signal: AbortSignal | undefined = undefined;
  onAbort: (() => void) | undefined = undefined;
  /** The caller's `onHeader` / `onTrailer`, when given (the REQUEST then sets TAKES_HEADERS). */
  onHeader: ((headers: Metadata) => void) | undefined = undefined;
  onTrailer: ((trailers: Metadata) => void) | undefined = undefined;
  /** The response headers were delivered (a HEADERS frame, or none before a message/STATUS). */
  headersSeen = false;
  done = false;

  constructor(
    readonly id: number,
    readonly bound: BoundMethod,
  ) {}
}

/** Runs client calls over one channel. */
export class ClientSession extends Session<ClientCall> {
  /**
   * The id of the next call. Ids only grow on a connection and are never reused (PROTOCOL.md
   * §5.1), so a late frame of an ended call can never be taken for a newer one.
   */
  private nextId = 1;
  private closeError: NearwireError | undefined;
  /** `close()` was called: calls fail with {@link closedByCaller}, not `peer-closed`. */
  private closedByCaller = false;
  /** A violation this side detected: the error its calls fail with (not `peer-closed`). */
  private violation: NearwireError | undefined;
  readonly closed: Promise<Error | undefined>;
  private resolveClosed!: (e: Error | undefined) => void;

  constructor(
    channel: Channel,
    private readonly maxMessageBytes: number,
  ) {
    super(channel, maxMessageBytes, "client");
    this.closed = new Promise((r) => {
      this.resolveClosed = r;
    });
    channel.start({
      onFrame: (type, payload) => this.onFrame(type, payload),
      onClose: (error) => this.onClose(error),
    });
  }

  unary(bound: BoundMethod, request: unknown, options: CallOptions | undefined): Promise<unknown> {
    const promise = new Promise(capture);
    const call = this.open(bound, options, capturedReject);
    if (call !== undefined) {
      call.resolve = capturedResolve;
      this.sendRequest(call, request, options);
    }
    return promise;
  }

  serverStreaming(
    bound: BoundMethod,
    request: unknown,
    options: CallOptions | undefined,
  ): AsyncIterable<unknown> {
    return this.streamed(bound, options, request, false);
  }

  clientStreaming(
    bound: BoundMethod,
    requests: Requests,
    options: CallOptions | undefined,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const call = this.open(bound, options, reject);
      if (call === undefined) return;
      call.resolve = resolve;
      this.startStream(call, requests, options);
    });
  }

  bidiStreaming(
    bound: BoundMethod,
    requests: Requests,
    options: CallOptions | undefined,
  ): AsyncIterable<unknown> {
    return this.streamed(bound, options, requests, true);
  }

  /** Fails every call with {@link closedByCaller} and closes the channel. */
  async close(): Promise<void> {
    this.closedByCaller = true;
    await this.writer.close();
  }

  /**
   * A call answered with a stream (server-streaming, bidi): `input` is its one request, or with
   * `streamsRequests` its request stream. The returned stream reports consumption (credit) and
   * abandonment (CANCEL) to the call.
   */
  private streamed(
    bound: BoundMethod,
    options: CallOptions | undefined,
    input: unknown,
    streamsRequests: boolean,
  ): AsyncIterable<unknown> {
    const inbound = new InboundStream<unknown>();
    const call = this.open(bound, options, (e) => inbound.fail(e));
    if (call === undefined) return inbound;
    call.inbound = inbound;
    call.inCredit = new InboundCredit(this.windowLimits);
    if (options?.lendMessages === true) {
      call.lends = true;
      inbound.lend(this.reclaim);
    }
    inbound.bind(
      () => this.consumed(call),
      () => this.cancel(call, Code.Canceled, "response stream abandoned by the caller"),
    );
    if (streamsRequests) this.startStream(call, input as Requests, options);
    else this.sendRequest(call, input, options);
    return inbound;
  }

  private open(
    bound: BoundMethod,
    options: CallOptions | undefined,
    reject: (e: NearwireError) => void,
  ): ClientCall | undefined {
    if (this.closeError !== undefined || this.channel.closed) {
      reject(
        this.closeError ??
          (this.closedByCaller
            ? closedByCaller()
            : new NearwireError(Code.Unavailable, "connection is closed", {
                reason: "peer-closed",
              })),
      );
      return undefined;
    }
    const signal = options?.signal;
    if (signal?.aborted) {
      reject(
        new NearwireError(Code.Canceled, "call aborted before it started", {
          cause: signal.reason,
        }),
      );
      return undefined;
    }
    const id = this.nextId;
    if (id > MAX_CALL_ID) {
      reject(
        new NearwireError(
          Code.Unavailable,
          `this connection has used all ${MAX_CALL_ID} call ids (ids are never reused): open a new connection`,
          { reason: "call-ids-exhausted" },
        ),
      );
      return undefined;
    }
    const timeoutMs = options?.timeoutMs;
    if (timeoutMs !== undefined && !(timeoutMs > 0)) {
      reject(timeoutError(timeoutMs));
      return undefined;
    }
    this.nextId = id + 1;
    const call = new ClientCall(id, bound);
    call.reject = reject;
    this.calls.add(call);
    if (options === undefined) return call;
    call.onHeader = options.onHeader;
    call.onTrailer = options.onTrailer;
    if (timeoutMs !== undefined) {
      call.deadline = new DeadlineTimer(wireTimeoutMs(timeoutMs), () =>
        this.cancel(call, Code.DeadlineExceeded, `deadline of ${timeoutMs} ms exceeded`),
      );
    }
    if (signal !== undefined) {
      call.signal = signal;
      call.onAbort = () => this.cancel(call, Code.Canceled, "call aborted by the caller");
      signal.addEventListener("abort", call.onAbort, { once: true });
    }
    return call;
  }

  private sendRequest(call: ClientCall, request: unknown, options: CallOptions | undefined): void {
    const timeoutMs = timeoutOf(options);
    const metadata = options?.metadata;
    const flags = call.onHeader === undefined ? FLAG_END_STREAM : END_STREAM_TAKES_HEADERS;
    try {
      if (metadata === undefined) {
        this.writer.request(
          call.id,
          flags,
          timeoutMs,
          call.bound.pathBytes,
          call.bound.input,
          request,
        );
        return;
      }
      const bytes = encodeChecked(call.bound.input, request, this.maxMessageBytes, "request");
      this.writer.send(
        FrameType.Request,
        encodeRequest(call.id, flags, timeoutMs, call.bound.pathBytes, metadata, bytes),
      );
    } catch (err) {
      this.settle(call, NearwireError.from(err, Code.Internal));
    }
  }

  private startStream(
    call: ClientCall,
    requests: Requests,
    options: CallOptions | undefined,
  ): void {
    const credit = this.newOutboundCredit();
    call.credit = credit;
    const payload = encodeRequest(
      call.id,
      call.onHeader === undefined ? 0 : FLAG_TAKES_HEADERS,
      timeoutOf(options),
      call.bound.pathBytes,
      options?.metadata,
      undefined,
    );
    try {
      this.writer.send(FrameType.Request, payload);
    } catch (err) {
      this.settle(call, NearwireError.from(err, Code.Unavailable));
      return;
    }
    const codec = call.bound.input;
    new MessagePump(requests, credit, {
      ended: () => call.done,
      send: (request) => {
        const room = this.writer.message(call.id, codec, request, "request");
        credit.sent(this.writer.messageBytes);
        return room;
      },
      drained: () => this.channel.drained(),
      finished: () => {
        if (call.done) return;
        try {
          this.writer.send(FrameType.End, encodeCallId(call.id));
        } catch (err) {
          this.requestsFailed(call, err);
        }
      },
      failed: (err) => this.requestsFailed(call, err),
    }).start();
  }

  /** A call's request stream threw `err` (its source, or sending): cancel the call with it. */
  private requestsFailed(call: ClientCall, err: unknown): void {
    if (call.done) return;
    const e = NearwireError.from(err, Code.Canceled);
    this.cancel(call, e.code, `request stream failed: ${e.message}`);
  }

  private consumed(call: ClientCall): void {
    const grant = (call.inCredit as InboundCredit).onConsumed();
    if (grant > 0 && !call.done) this.writer.credit(call.id, grant);
  }

  /** The caller gives up: fail locally (with `error` when given) and tell the server. */
  private cancel(call: ClientCall, code: Code, message: string, error?: NearwireError): void {
    if (call.done) return;
    this.settle(call, error ?? new NearwireError(code, message));
    if (!this.channel.closed) this.writer.send(FrameType.Cancel, encodeCancel(call.id, code));
  }

  private onFrame(type: number, payload: Uint8Array): void {
    try {
      switch (type) {
        case FrameType.Status:
          this.onStatus(payload);
          return;
        case FrameType.Message: {
          const id = readCallId(payload, "MESSAGE");
          const call = this.calls.get(id);
          if (call !== undefined) this.onMessageFrame(call, payload, call.lends);
          else this.checkStarted(id, "MESSAGE");
          return;
        }
        case FrameType.Batch:
          this.onBatch(payload);
          return;
        case FrameType.Credit:
          this.onCredit(payload);
          return;
        case FrameType.Headers:
          this.onHeaders(payload);
          return;
        default:
          throw this.unknownType(type);
      }
    } catch (err) {
      const e = NearwireError.from(err, Code.Internal);
      this.violation ??= e;
      void this.channel.close(e);
    }
  }

  /** This client started every id below nextId. */
  protected override checkStarted(id: number, what: string): void {
    if (id >= this.nextId || id === 0) {
      throw protocolError(`${what} for call id ${id}, which this client never started`);
    }
  }

  protected override inboundCodec(call: ClientCall): MessageCodec<unknown> {
    return call.bound.output;
  }

  protected override receiving(call: ClientCall): boolean {
    return !call.done;
  }

  /**
   * A HEADERS frame (PROTOCOL.md §5.2): the response headers of a call whose REQUEST set
   * TAKES_HEADERS, before its first message. On any other call, or a second time, it is a
   * violation; for a call that ended here, it is ignored.
   */
  private onHeaders(p: Uint8Array): void {
    const { callId, headers } = decodeHeaders(p);
    const call = this.calls.get(callId);
    if (call === undefined) {
      this.checkStarted(callId, "HEADERS");
      return;
    }
    if (call.onHeader === undefined)
      throw protocolError(`HEADERS on call ${callId}, whose REQUEST did not set TAKES_HEADERS`);
    if (call.headersSeen)
      throw protocolError(`HEADERS on call ${callId} after its headers or a response message`);
    this.deliverHeaders(call, headers);
  }

  /** Hands the caller the response headers, once. */
  private deliverHeaders(call: ClientCall, headers: Metadata): void {
    call.headersSeen = true;
    (call.onHeader as (h: Metadata) => void)(headers);
  }

  private onStatus(p: Uint8Array): void {
    // Fast path: OK, no detail, no trailers, the response inline (what nearwire servers send).
    if (isOkStatusWithMessage(p)) {
      const id = readU32(p, 0);
      const call = this.calls.get(id);
      if (call === undefined) {
        this.checkStarted(id, "STATUS");
        return;
      }
      this.onMessage(call, p, STATUS_HEAD_BYTES, p.byteLength, this.channel.transientPayloads);
      if (call.onTrailer !== undefined && !call.done) call.onTrailer({});
      this.settleOk(call);
      return;
    }
    const st = decodeStatus(p);
    const call = this.calls.get(st.callId);
    if (call === undefined) {
      this.checkStarted(st.callId, "STATUS");
      return;
    }
    if (call.onHeader !== undefined && !call.headersSeen && !call.done)
      this.deliverHeaders(call, {});
    if (st.code !== Code.OK) {
      const error = statusError(st.code, st.detail, st.trailers, call.bound.codec);
      if (call.onTrailer !== undefined && !call.done) call.onTrailer(error.metadata ?? {});
      this.settle(call, error, true);
      return;
    }
    const m = st.message;
    if (m !== undefined) this.onMessage(call, m, 0, m.byteLength, this.channel.transientPayloads);
    if (call.onTrailer !== undefined && !call.done) call.onTrailer(userTrailers(st.trailers));
    this.settleOk(call);
  }

  /** An OK STATUS arrived: end the stream, or resolve with the one response. */
  private settleOk(call: ClientCall): void {
    if (call.done) return;
    if (call.inbound !== undefined || call.hasLast) {
      this.settle(call);
      return;
    }
    this.settle(
      call,
      new NearwireError(
        Code.Internal,
        `${call.bound.kind} call ended OK without a response message`,
      ),
    );
  }

  /** A response message: `frame[offset … end)`, only valid during the callback if `transient`. */
  protected override onMessage(
    call: ClientCall,
    frame: Uint8Array,
    offset: number,
    end: number,
    transient: boolean,
  ): void {
    if (call.done) return;
    if (call.onHeader !== undefined && !call.headersSeen) this.deliverHeaders(call, {});
    let lent: Uint8Array | undefined;
    if (call.lends && call.inbound !== undefined) {
      const s = this.lendSource(frame, offset, end, transient, call.bound.output);
      lent = s.lent;
      frame = s.frame;
      offset = s.offset;
      end = s.end;
      transient = s.transient;
    }
    let value: unknown;
    try {
      value = decodeChecked(
        call.bound.output,
        frame,
        offset,
        end,
        transient,
        this.maxMessageBytes,
        "response",
        lent !== undefined,
      );
    } catch (err) {
      let e = NearwireError.from(err, Code.Internal);
      // A response this side cannot decode is INTERNAL (§5.6), as gRPC has it; the reason stays.
      if (e.code === Code.InvalidArgument) {
        e = new NearwireError(Code.Internal, e.message, {
          cause: e.cause,
          ...(e.reason === undefined ? {} : { reason: e.reason }),
        });
      }
      this.cancel(call, e.code, e.message, e);
      return;
    }
    const inbound = call.inbound;
    if (inbound !== undefined) {
      if (!(call.inCredit as InboundCredit).onReceived(end - offset))
        throw this.pastCredit(call.id);
      inbound.push(value, lent);
    } else {
      call.last = value;
      call.hasLast = true;
    }
  }

  /**
   * The one place a call ends on the client: resolves (or ends its stream) without `error`,
   * else fails it. `keepBuffered`: responses that arrived before an error STATUS are still
   * delivered.
   */
  private settle(call: ClientCall, error?: NearwireError, keepBuffered = false): void {
    if (call.done) return;
    call.done = true;
    this.calls.remove(call);
    call.deadline?.clear();
    if (call.onAbort !== undefined) call.signal?.removeEventListener("abort", call.onAbort);
    call.credit?.fail(error ?? CALL_FINISHED);
    const inbound = call.inbound;
    if (inbound !== undefined) {
      if (error === undefined) inbound.end();
      else inbound.fail(error, keepBuffered);
    } else if (error === undefined) {
      const value = call.last;
      call.last = undefined;
      call.resolve?.(value);
    } else {
      call.reject?.(error);
    }
  }

  private onClose(error: NearwireError | undefined): void {
    const message = error === undefined ? "connection closed" : `connection lost: ${error.message}`;
    // A violation this side detected is what failed its calls, not the peer closing.
    this.closeError =
      this.violation ??
      (this.closedByCaller && error === undefined
        ? closedByCaller()
        : new NearwireError(Code.Unavailable, message, {
            reason: "peer-closed",
            ...(error ? { cause: error } : {}),
          }));
    for (const call of this.calls.snapshot()) this.settle(call, this.closeError);
    this.resolveClosed(error);
  }
}

/**
 * An error STATUS as the caller's error: the `nearwire-reason` trailer becomes its `reason`; a
 * `nearwire-codec` trailer naming another codec than the call's makes it a codec mismatch
 * (reason `codec-mismatch`, "client speaks msgpack, server json: …").
 */
function statusError(
  code: Code,
  detail: string,
  trailers: Metadata | undefined,
  codec: string,
): NearwireError {
  if (trailers === undefined) return new NearwireError(code, detail);
  const reason = trailers[REASON_TRAILER];
  if (reason === undefined)
    return withServerCodec(new NearwireError(code, detail, { metadata: trailers }), codec);
  const { [REASON_TRAILER]: _, ...metadata } = trailers;
  const opts: NearwireErrorOptions = { metadata };
  if (reason !== "") opts.reason = reason as ErrorReason;
  return withServerCodec(new NearwireError(code, detail, opts), codec);
}

/** An OK STATUS's trailers without the ones PROTOCOL.md reserves (`nearwire-*`). */
function userTrailers(trailers: Metadata | undefined): Metadata {
  if (trailers === undefined) return {};
  const { [REASON_TRAILER]: _r, [CODEC_TRAILER]: _c, ...rest } = trailers;
  return rest;
}

/** REQUEST flags of a call with one request message that takes a HEADERS frame. */
const END_STREAM_TAKES_HEADERS = FLAG_END_STREAM | FLAG_TAKES_HEADERS;

/** What a client-streaming or bidi call sends. */
type Requests = AsyncIterable<unknown> | Iterable<unknown>;

/** The largest call id (u32); a connection that has used it starts no more calls. */
const MAX_CALL_ID = 0xffffffff;

/**
 * What a call on a connection this side closed fails with, on every transport: CANCELLED
 * reason `closed` (as grpc-go's "the client connection is closing"), not UNAVAILABLE, so that
 * a retry policy does not retry it and a caller can tell it from a lost connection.
 */
export function closedByCaller(): NearwireError {
  return new NearwireError(
    Code.Canceled,
    "this connection was closed by its own side (close()): connect again to make calls",
    { reason: "closed" },
  );
}

/**
 * Why a `timeoutMs` that is not above 0 fails the call at once (PROTOCOL.md §5.5, the same on
 * every transport): 0 and negative values are a deadline already passed (DEADLINE_EXCEEDED,
 * nothing is sent); NaN is INVALID_ARGUMENT.
 */
export function timeoutError(timeoutMs: number): NearwireError {
  if (Number.isNaN(timeoutMs)) {
    return new NearwireError(Code.InvalidArgument, "timeoutMs is NaN, not a number of ms");
  }
  return new NearwireError(
    Code.DeadlineExceeded,
    `timeoutMs ${timeoutMs} ≤ 0: the deadline has already passed, the call was not sent`,
  );
}

/**
 * The executor of every unary call's promise: hands its resolving functions over through two
 * module variables (the executor runs synchronously inside `new Promise`), so a call makes no
 * executor closure of its own.
 */
let capturedResolve: (value: unknown) => void = () => undefined;
let capturedReject: (err: NearwireError) => void = () => undefined;
function capture(resolve: (value: unknown) => void, reject: (err: NearwireError) => void): void {
  capturedResolve = resolve;
  capturedReject = reject;
}

/** A caller's `timeoutMs` as the wire's u32 (0 = none): at least 1, at most 2^32 − 1. */
function wireTimeoutMs(t: number): number {
  return Math.max(1, Math.min(0xffffffff, Math.ceil(t)));
}

function timeoutOf(options: CallOptions | undefined): number {
  const t = options?.timeoutMs;
  return t === undefined ? 0 : wireTimeoutMs(t);
}
