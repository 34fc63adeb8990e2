/** The server side of the RPC engine over one Channel (PROTOCOL.md section 5). */
import type { Channel } from "../channel.js";
import { Code } from "../code.js";
import type { MessageCodec } from "../codec.js";
import { FrameType } from "../frame-type.js";
import { NearwireError } from "../nearwire-error.js";
import type { Peer } from "../peer.js";
import type { Metadata } from "../transport.js";
import { decodeChecked, encodeChecked } from "./bound-method.js";
import { DeadlineTimer } from "./deadline-timer.js";
import {
  CODEC_TRAILER,
  decodeCancel,
  decodeRequest,
  END_BYTES,
  encodeHeaders,
  encodeStatus,
  FLAG_END_STREAM,
  FLAG_HAS_MESSAGE,
  FLAG_TAKES_HEADERS,
  latin1OrUtf8,
  REASON_TRAILER,
  REQUEST_HEAD_BYTES,
  RequestHead,
  readCallId,
} from "./envelope.js";
import { type HandlerErrorHook, handlerFailure } from "./handler-error.js";
import { InboundCredit } from "./inbound-credit.js";
import { InboundStream } from "./inbound-stream.js";
import { MessagePump } from "./message-pump.js";
import type { MethodTable } from "./method-table.js";
import { ServerCall } from "./server-call.js";
import { protocolError, Session } from "./session.js";

/** What a session needs from its server. */
export interface ServerSessionHost {
  readonly methods: MethodTable;
  readonly maxMessageBytes: number;
  /** Calls one connection may hold open at once; a REQUEST beyond gets RESOURCE_EXHAUSTED. */
  readonly maxConcurrentCalls: number;
  /** Close a connection without open calls after this long without a frame, ms; 0: never. */
  readonly idleTimeoutMs: number;
  readonly draining: boolean;
  /** What to do with a handler's error that is not a NearwireError (RpcOptions). */
  readonly onHandlerError: HandlerErrorHook | undefined;
  sessionClosed(session: ServerSession): void;
  callsChanged(): void;
}

/**
 * Serves calls arriving on one channel.
 *
 * A unary call whose handler returns a value (not a promise) is answered inside the REQUEST's
 * frame callback and never enters the call table; a call is registered (table, deadline timer)
 * only while something of it is pending: a promise, a stream, a missing request message.
 */
export class ServerSession extends Session<ServerCall> {
  /** `ctx.peer` of every call on this connection: one object per connection. */
  private readonly peer: Peer;
  /** Every REQUEST of this connection is read into this one (see onRequest). */
  private readonly request = new RequestHead();
  private closed = false;
  /**
   * The highest call id a REQUEST has used on this connection (PROTOCOL.md §5.1): ids only grow,
   * so a REQUEST at or below it is a violation, and a frame for an id above it names a call
   * that was never started.
   */
  private lastId = 0;
  /** Reading is paused until the channel's send buffer drains below its high-water mark. */
  private blocked = false;
  /** Frames received, and their count at the last idle check (idleTimeoutMs). */
  private framesIn = 0;
  private framesAtCheck = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly checkIdle = (): void => {
    if (this.framesIn !== this.framesAtCheck || this.calls.size > 0 || this.blocked) {
      this.framesAtCheck = this.framesIn;
      return;
    }
    void this.writer.close();
  };
  private readonly unblock = (): void => {
    this.blocked = false;
    if (!this.closed) this.channel.resume();
  };

  constructor(
    channel: Channel,
    private readonly host: ServerSessionHost,
  ) {
    super(channel, host.maxMessageBytes, "server");
    this.peer = channel.peerCredentials ?? { address: channel.peer };
    channel.start({
      onFrame: (type, payload) => this.onFrame(type, payload),
      onClose: (error) => this.onClose(error),
    });
    if (host.idleTimeoutMs > 0) {
      this.idleTimer = setInterval(this.checkIdle, host.idleTimeoutMs);
      this.idleTimer.unref();
    }
  }

  /** Cancels every call with `code` (their handlers see the abort) and closes the channel. */
  async shutdown(code: Code, message: string): Promise<void> {
    const shared = new NearwireError(code, message, { reason: "server-closing" });
    for (const call of this.calls.snapshot()) this.end(call, code, message, SERVER_CLOSING, shared);
    await this.writer.close();
  }

  private onFrame(type: number, payload: Uint8Array): void {
    this.framesIn++;
    try {
      switch (type) {
        case FrameType.Request:
          this.onRequest(payload);
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
        case FrameType.End:
          if (payload.byteLength !== END_BYTES) throw protocolError("malformed END frame");
          this.onEnd(readCallId(payload, "END"));
          return;
        case FrameType.Cancel: {
          const { callId, code } = decodeCancel(payload);
          const call = this.calls.get(callId);
          if (call !== undefined) this.end(call, code, "cancelled by client", NO_STATUS);
          else this.checkStarted(callId, "CANCEL");
          return;
        }
        case FrameType.Credit:
          this.onCredit(payload);
          return;
        default:
          throw this.unknownType(type);
      }
    } catch (err) {
      void this.channel.close(NearwireError.from(err, Code.Internal));
    }
  }

  /**
   * A REQUEST (PROTOCOL.md §5.2): read in place into the session's one {@link RequestHead} (no
   * frame object, no method string per call), admitted, then dispatched by its method's kind.
   */
  private onRequest(p: Uint8Array): void {
    const head = decodeRequest(p, this.request);
    const call = this.admit(p, head);
    if (call !== undefined) this.dispatch(call, p, head);
  }

  /**
   * The call a REQUEST starts, or undefined when it is refused with a STATUS (method not found,
   * server draining, maxConcurrentCalls reached); a call id not above the last one is a
   * violation.
   */
  private admit(p: Uint8Array, head: RequestHead): ServerCall | undefined {
    const id = head.callId;
    if (id <= this.lastId) {
      throw protocolError(
        `REQUEST call id ${id} is not above the last one, ${this.lastId} (ids never repeat on a connection)`,
      );
    }
    this.lastId = id;
    const method = this.host.methods.lookup(p, REQUEST_HEAD_BYTES, head.methodBytes);
    if (method === undefined || this.host.draining) {
      const name = latin1OrUtf8(p, REQUEST_HEAD_BYTES, head.methodBytes, "REQUEST");
      if (this.host.draining)
        this.sendStatus(id, Code.Unavailable, "server is shutting down", SERVER_CLOSING);
      else this.sendStatus(id, Code.Unimplemented, `method ${name} not found`);
      return undefined;
    }
    if (this.calls.size >= this.host.maxConcurrentCalls) {
      this.sendStatus(
        id,
        Code.ResourceExhausted,
        `${this.calls.size} calls open > maxConcurrentCalls ${this.host.maxConcurrentCalls}`,
      );
      return undefined;
    }
    return new ServerCall(
      id,
      method.bound,
      method.impl as never,
      head.metadata,
      head.timeoutMs,
      this.peer,
      (head.flags & FLAG_TAKES_HEADERS) !== 0,
      method.lends,
    );
  }

  /**
   * Starts an admitted call: a unary or server-streaming call whose one request came inline runs
   * at once (a unary one without entering the table, unless its handler is async); any other is
   * registered and takes its request message(s) as MESSAGE frames would bring them.
   */
  private dispatch(call: ServerCall, p: Uint8Array, head: RequestHead): void {
    // Read before any handler runs: the head is the session's one, reused by the next REQUEST.
    const flags = head.flags;
    const at = head.messageAt;
    const timeoutMs = head.timeoutMs;
    const hasMessage = (flags & FLAG_HAS_MESSAGE) !== 0;
    const ended = (flags & FLAG_END_STREAM) !== 0;
    const transient = this.channel.transientPayloads;
    const kind = call.bound.kind;
    if (kind === "unary" || kind === "server_streaming") {
      if (hasMessage && ended) {
        // The request message is p[at…] (no view of it is made here: see decodeChecked).
        const input = this.decodeRequestMessage(call, p, at, p.byteLength, transient);
        if (input === NOTHING) return;
        if (kind === "unary") this.runUnary(call, input);
        else {
          this.register(call, timeoutMs);
          this.runStreaming(call, input);
        }
        return;
      }
      this.register(call, timeoutMs);
      call.single = { count: 0 };
      if (hasMessage) this.onMessage(call, p, at, p.byteLength, transient);
      if (ended) this.onEnd(call.id);
      return;
    }
    this.register(call, timeoutMs);
    const inbound = new InboundStream<unknown>();
    if (call.lends) inbound.lend(this.reclaim);
    call.inCredit = new InboundCredit(this.windowLimits);
    inbound.bind(
      () => this.consumed(call),
      () => undefined,
    );
    call.inbound = inbound;
    if (hasMessage) this.onMessage(call, p, at, p.byteLength, transient);
    if (ended) {
      call.halfClosed = true;
      inbound.end();
    }
    if (kind === "client_streaming") this.runUnary(call, inbound);
    else this.runStreaming(call, inbound);
  }

  /** Puts `call` in the table (with its deadline): something of it is pending. */
  private register(call: ServerCall, timeoutMs: number): void {
    if (this.calls.holds(call)) return;
    this.calls.add(call);
    this.host.callsChanged();
    if (timeoutMs > 0) {
      call.deadlineTimer = new DeadlineTimer(timeoutMs, () =>
        this.end(call, Code.DeadlineExceeded, `deadline of ${timeoutMs} ms exceeded`),
      );
    }
  }

  /** A request message: `frame[offset … end)`, only valid during the callback if `transient`. */
  protected override onMessage(
    call: ServerCall,
    frame: Uint8Array,
    offset: number,
    end: number,
    transient: boolean,
  ): void {
    if (call.finished) return;
    if (call.single !== undefined) {
      call.single.count++;
      if (call.single.count > 1) {
        this.end(
          call,
          Code.InvalidArgument,
          `${call.bound.kind} call got more than one request message`,
        );
        return;
      }
      const input = this.decodeRequestMessage(call, frame, offset, end, transient);
      if (input !== NOTHING) call.single.value = input;
      return;
    }
    const inbound = call.inbound;
    // No stream and no single request pending: the client's END came already (§5.10).
    if (inbound === undefined || call.halfClosed)
      throw protocolError(`MESSAGE on call ${call.id} after its END`);
    if (!(call.inCredit as InboundCredit).onReceived(end - offset)) throw this.pastCredit(call.id);
    if (call.lends) {
      const s = this.lendSource(frame, offset, end, transient, call.bound.input);
      const lent = s.lent;
      const input = this.decodeRequestMessage(
        call,
        s.frame,
        s.offset,
        s.end,
        s.transient,
        lent !== undefined,
      );
      if (input !== NOTHING) inbound.push(input, lent);
      return;
    }
    const input = this.decodeRequestMessage(call, frame, offset, end, transient);
    if (input !== NOTHING) inbound.push(input);
  }

  private onEnd(id: number): void {
    const call = this.calls.get(id);
    if (call === undefined) {
      this.checkStarted(id, "END");
      return;
    }
    if (call.finished) return;
    const single = call.single;
    if (single === undefined) {
      const inbound = call.inbound;
      if (inbound === undefined || call.halfClosed)
        throw protocolError(`a second END on call ${id}`);
      call.halfClosed = true;
      inbound.end();
      return;
    }
    if (single.count !== 1) {
      this.end(
        call,
        Code.InvalidArgument,
        `${call.bound.kind} call got ${single.count} request messages`,
      );
      return;
    }
    call.single = undefined;
    if (call.bound.kind === "unary") this.runUnary(call, single.value);
    else this.runStreaming(call, single.value);
  }

  /** A REQUEST started every id from 1 to lastId. */
  protected override checkStarted(id: number, what: string): void {
    if (id > this.lastId || id === 0) {
      throw protocolError(`${what} for call id ${id}, which no REQUEST started`);
    }
  }

  protected override inboundCodec(call: ServerCall): MessageCodec<unknown> {
    return call.bound.input;
  }

  /** After the client's END (§5.10), a MESSAGE of the call is a violation. */
  protected override receiving(call: ServerCall): boolean {
    return !call.halfClosed;
  }

  private decodeRequestMessage(
    call: ServerCall,
    frame: Uint8Array,
    offset: number,
    end: number,
    transient: boolean,
    owned = false,
  ): unknown {
    try {
      return decodeChecked(
        call.bound.input,
        frame,
        offset,
        end,
        transient,
        this.host.maxMessageBytes,
        "request",
        owned,
      );
    } catch (err) {
      const e = NearwireError.from(err, Code.InvalidArgument);
      const trailers: Metadata = { [CODEC_TRAILER]: call.bound.codec };
      if (e.reason !== undefined) trailers[REASON_TRAILER] = e.reason;
      this.end(call, e.code, e.message, trailers);
      return NOTHING;
    }
  }

  private consumed(call: ServerCall): void {
    const grant = (call.inCredit as InboundCredit).onConsumed();
    if (grant > 0 && !call.finished) this.writer.credit(call.id, grant);
  }

  /** Runs a handler that answers with one message (unary, client-streaming). */
  private runUnary(call: ServerCall, input: unknown): void {
    let result: unknown;
    try {
      result = call.impl(input, call);
    } catch (err) {
      this.fail(call, err);
      this.handlerDone(call);
      return;
    }
    if (result instanceof Promise) {
      this.register(call, readDeadline(call));
      result.then(
        (value) => {
          this.reply(call, value);
          this.handlerDone(call);
        },
        (err) => {
          this.fail(call, err);
          this.handlerDone(call);
        },
      );
    } else {
      this.reply(call, result);
      this.handlerDone(call);
    }
  }

  /**
   * The handler of `call` returned (its reply, if any, is encoded): a lending handler then holds
   * none of its request messages, and the last one's buffer goes back as well.
   */
  private handlerDone(call: ServerCall): void {
    if (call.lends) call.inbound?.consumerDone();
  }

  /** Runs a handler that answers with a stream (server-streaming, bidi). */
  private runStreaming(call: ServerCall, input: unknown): void {
    let source: AsyncIterable<unknown>;
    try {
      source = call.impl(input, call) as AsyncIterable<unknown>;
    } catch (err) {
      this.fail(call, err);
      return;
    }
    const credit = this.newOutboundCredit();
    call.credit = credit;
    const codec = call.bound.output;
    new MessagePump(source, credit, {
      ended: () => call.finished,
      send: (value) => {
        if (call.headersPending) this.sendHeaders(call);
        const room = this.writer.message(call.id, codec, value, "response");
        credit.sent(this.writer.messageBytes);
        if (room) return true;
        this.pushBack();
        return false;
      },
      drained: () => this.channel.drained(),
      finished: () => {
        this.end(call, Code.OK, "");
        this.handlerDone(call);
      },
      failed: (err) => {
        this.fail(call, err);
        this.handlerDone(call);
      },
    }).start();
  }

  private reply(call: ServerCall, value: unknown): void {
    if (call.finished) return;
    if (call.headersPending) {
      this.sendHeaders(call);
      if (call.finished) return;
    }
    const trailers = call.trailersIfAny;
    try {
      if (trailers === undefined) {
        if (!this.writer.okStatus(call.id, call.bound.output, value)) this.pushBack();
      } else {
        const bytes = encodeChecked(
          call.bound.output,
          value,
          this.host.maxMessageBytes,
          "response",
        );
        const s = encodeStatus(call.id, Code.OK, "", trailers, bytes);
        if (!this.writer.send(FrameType.Status, s)) this.pushBack();
      }
    } catch (err) {
      this.fail(call, err);
      return;
    }
    this.end(call, Code.OK, "", NO_STATUS);
  }

  /** Ends `call` with the STATUS of what its handler threw. */
  private fail(call: ServerCall, err: unknown): void {
    if (call.finished) return;
    const e =
      err instanceof NearwireError ? err : handlerFailure(err, call, this.host.onHandlerError);
    const md = e.reason === undefined ? e.metadata : { ...e.metadata, [REASON_TRAILER]: e.reason };
    this.end(call, e.code === Code.OK ? Code.Unknown : e.code, e.message, md);
  }

  /**
   * The one place a call ends on the server, whatever ends it (reply, handler error, deadline,
   * bad request message, CANCEL, shutdown, lost connection); later ends do nothing. Sends its
   * STATUS with `trailers` after the handler's own, unless `NO_STATUS` (the reply carried it, the
   * client cancelled, the connection is gone); unless OK, aborts the call with `shared` (one
   * error for many calls) or a new error of `code` and `message`; forgets it.
   */
  private end(
    call: ServerCall,
    code: Code,
    message: string,
    trailers?: Metadata | typeof NO_STATUS,
    shared?: NearwireError,
  ): void {
    if (call.finished) return;
    call.finished = true;
    if (trailers !== NO_STATUS) {
      if (call.headersPending) this.sendHeaders(call);
      let md = call.trailersIfAny;
      if (trailers !== undefined && Object.keys(trailers).length > 0) md = { ...md, ...trailers };
      this.sendStatus(call.id, code, message, md);
    }
    if (code !== Code.OK) call.abort(shared ?? new NearwireError(code, message));
    else call.deadlineTimer?.clear();
    // A closed session tells its host once, in onClose, not once per call.
    if (this.calls.remove(call) && !this.closed) this.host.callsChanged();
  }

  /**
   * Sends the handler's response headers in a HEADERS frame, once, before the call's first
   * response frame — only when the client asked (TAKES_HEADERS) and there are some.
   */
  private sendHeaders(call: ServerCall): void {
    call.headersPending = false;
    const headers = call.headerBag;
    if (headers === undefined || this.channel.closed) return;
    if (Object.keys(headers).length === 0) return;
    try {
      this.writer.send(FrameType.Headers, encodeHeaders(call.id, headers));
    } catch (err) {
      // Headers that cannot be sent (a key over 64 KiB) fail the call with the reason.
      this.fail(call, err);
    }
  }

  /** Sends a STATUS without a message; when it does not fit the channel, says why instead. */
  private sendStatus(id: number, code: Code, message: string, trailers?: Metadata): void {
    if (this.channel.closed) return;
    try {
      const s = encodeStatus(id, code, message, trailers);
      if (!this.writer.send(FrameType.Status, s)) this.pushBack();
    } catch (err) {
      const e = NearwireError.from(err, Code.Internal);
      if (this.channel.closed) return;
      this.writer.send(
        FrameType.Status,
        encodeStatus(id, e.code, `response not sent: ${e.message}`),
      );
    }
  }

  /**
   * The channel's send buffer is above its high-water mark: stop reading requests until it
   * drains, so that a peer that sends without reading its answers is pushed back by the
   * transport (socket buffers, ring space) instead of growing this process's memory.
   */
  private pushBack(): void {
    if (this.blocked || this.closed) return;
    this.blocked = true;
    this.channel.pause();
    this.channel.drained().then(this.unblock, this.unblock);
  }

  /** Fails every call at once: one shared error (no stack trace per call), O(calls). */
  private onClose(error: NearwireError | undefined): void {
    if (this.closed) return;
    this.closed = true;
    if (this.idleTimer !== undefined) clearInterval(this.idleTimer);
    const reason = error?.message ?? "connection closed";
    if (this.calls.size > 0) {
      const message = `connection lost: ${reason}`;
      const shared = new NearwireError(Code.Unavailable, message);
      for (const call of this.calls.snapshot())
        this.end(call, Code.Unavailable, message, NO_STATUS, shared);
    }
    this.host.sessionClosed(this);
  }
}

/** The wire timeout left for a call that becomes pending (its deadline was fixed at arrival). */
function readDeadline(call: ServerCall): number {
  if (call.deadline === undefined) return 0;
  return Math.max(1, call.deadline - Date.now());
}

const NOTHING: unique symbol = Symbol("nothing");

/** The trailers `end` takes for a call whose STATUS is not to be sent. */
const NO_STATUS: unique symbol = Symbol("no status");

/** Trailers of a STATUS sent because the server is closing. */
const SERVER_CLOSING: Metadata = { [REASON_TRAILER]: "server-closing" };
