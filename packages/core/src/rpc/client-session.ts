import type { Channel } from "../channel.js";
import { Code } from "../code.js";
import { FrameType } from "../frame-type.js";
import { NearwireError } from "../nearwire-error.js";
import type { CallOptions } from "../transport.js";
import { type BoundMethod, decodeChecked, encodeChecked } from "./bound-method.js";
import {
  decodeCredit,
  decodeStatus,
  encodeCallId,
  encodeCancel,
  encodeMessage,
  encodeRequest,
  FLAG_END_STREAM,
  FLAG_HAS_MESSAGE,
  INITIAL_CREDIT,
  readCallId,
  writeMessageHead,
  writeRequestHead,
} from "./envelope.js";
import { InboundStream } from "./inbound-stream.js";
import { OutboundCredit, returnCredit } from "./outbound-credit.js";
import { canSendInPlace, sendInPlace } from "./send-in-place.js";

/** Client-side state of one call. */
interface ClientCall {
  readonly id: number;
  readonly bound: BoundMethod;
  /** Unary and client-streaming: settles the returned promise. */
  resolve: ((value: unknown) => void) | undefined;
  reject: ((err: NearwireError) => void) | undefined;
  /** Streamed responses (server-streaming, bidi). */
  inbound: InboundStream<unknown> | undefined;
  /** The last MESSAGE seen on a unary or client-streaming call (peers may send it apart from STATUS). */
  last: unknown;
  hasLast: boolean;
  consumed: number;
  credit: OutboundCredit | undefined;
  timer: NodeJS.Timeout | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  done: boolean;
}

/** Runs client calls over one channel. */
export class ClientSession {
  private readonly calls = new Map<number, ClientCall>();
  private nextId = 1;
  private closeError: NearwireError | undefined;
  readonly closed: Promise<Error | undefined>;
  private resolveClosed!: (e: Error | undefined) => void;

  constructor(
    readonly channel: Channel,
    private readonly maxMessageBytes: number,
  ) {
    this.closed = new Promise((r) => {
      this.resolveClosed = r;
    });
    channel.start({
      onFrame: (type, payload) => this.onFrame(type, payload),
      onClose: (error) => this.onClose(error),
    });
  }

  unary(bound: BoundMethod, request: unknown, options: CallOptions | undefined): Promise<unknown> {
    return this.single(bound, options, (call) => this.sendRequest(call, request, options));
  }

  serverStreaming(
    bound: BoundMethod,
    request: unknown,
    options: CallOptions | undefined,
  ): AsyncIterable<unknown> {
    return this.streamed(bound, options, (call) => this.sendRequest(call, request, options));
  }

  clientStreaming(
    bound: BoundMethod,
    requests: AsyncIterable<unknown> | Iterable<unknown>,
    options: CallOptions | undefined,
  ): Promise<unknown> {
    return this.single(bound, options, (call) => this.startStream(call, requests, options));
  }

  bidiStreaming(
    bound: BoundMethod,
    requests: AsyncIterable<unknown> | Iterable<unknown>,
    options: CallOptions | undefined,
  ): AsyncIterable<unknown> {
    return this.streamed(bound, options, (call) => this.startStream(call, requests, options));
  }

  /** A call answered by one response message (unary, client-streaming). */
  private single(
    bound: BoundMethod,
    options: CallOptions | undefined,
    start: (call: ClientCall) => void,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const call = this.open(bound, options, reject);
      if (call === undefined) return;
      call.resolve = resolve;
      start(call);
    });
  }

  /** A call answered by a stream of responses (server-streaming, bidi). */
  private streamed(
    bound: BoundMethod,
    options: CallOptions | undefined,
    start: (call: ClientCall) => void,
  ): AsyncIterable<unknown> {
    const inbound = new InboundStream<unknown>(
      () => call !== undefined && this.consumed(call),
      () =>
        call !== undefined &&
        this.cancel(call, Code.Canceled, "response stream abandoned by the caller"),
    );
    const call = this.open(bound, options, (e) => inbound.fail(e));
    if (call === undefined) return inbound;
    call.inbound = inbound;
    start(call);
    return inbound;
  }

  /** Fails every call with UNAVAILABLE and closes the channel. */
  async close(): Promise<void> {
    await this.channel.close();
  }

  private open(
    bound: BoundMethod,
    options: CallOptions | undefined,
    reject: (e: NearwireError) => void,
  ): ClientCall | undefined {
    if (this.closeError !== undefined || this.channel.closed) {
      reject(
        this.closeError ??
          new NearwireError(Code.Unavailable, "connection is closed", { reason: "peer-closed" }),
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
    let id = this.nextId;
    while (this.calls.has(id)) id = id >= 0xffffffff ? 1 : id + 1;
    this.nextId = id >= 0xffffffff ? 1 : id + 1;
    const call: ClientCall = {
      id,
      bound,
      resolve: undefined,
      reject,
      inbound: undefined,
      last: undefined,
      hasLast: false,
      consumed: 0,
      credit: undefined,
      timer: undefined,
      signal,
      onAbort: undefined,
      done: false,
    };
    this.calls.set(id, call);
    const timeoutMs = options?.timeoutMs;
    if (timeoutMs !== undefined) {
      call.timer = setTimeout(
        () => this.cancel(call, Code.DeadlineExceeded, `deadline of ${timeoutMs} ms exceeded`),
        timeoutMs,
      );
    }
    if (signal !== undefined) {
      call.onAbort = () => this.cancel(call, Code.Canceled, "call aborted by the caller");
      signal.addEventListener("abort", call.onAbort, { once: true });
    }
    return call;
  }

  private sendRequest(call: ClientCall, request: unknown, options: CallOptions | undefined): void {
    const timeoutMs = timeoutOf(options);
    const { pathBytes, input } = call.bound;
    if (
      options?.metadata === undefined &&
      !this.channel.closed &&
      canSendInPlace(this.channel, input)
    ) {
      const flags = FLAG_END_STREAM | FLAG_HAS_MESSAGE;
      const head = (slot: Uint8Array) =>
        writeRequestHead(slot, 0, call.id, flags, timeoutMs, pathBytes);
      const headBytes = 10 + pathBytes.byteLength;
      if (
        sendInPlace(
          this.channel,
          FrameType.Request,
          headBytes,
          head,
          input,
          request,
          this.maxMessageBytes,
        )
      )
        return;
    }
    let bytes: Uint8Array;
    try {
      bytes = encodeChecked(call.bound.input, request, this.maxMessageBytes, "request");
    } catch (err) {
      this.settle(call, NearwireError.from(err, Code.Internal));
      return;
    }
    const md = options?.metadata;
    const payload = encodeRequest(
      call.id,
      FLAG_END_STREAM,
      timeoutMs,
      call.bound.pathBytes,
      md,
      bytes,
    );
    this.send(call, FrameType.Request, payload);
  }

  private startStream(
    call: ClientCall,
    requests: AsyncIterable<unknown> | Iterable<unknown>,
    options: CallOptions | undefined,
  ): void {
    call.credit = new OutboundCredit();
    const payload = encodeRequest(
      call.id,
      0,
      timeoutOf(options),
      call.bound.pathBytes,
      options?.metadata,
      undefined,
    );
    if (!this.send(call, FrameType.Request, payload)) return;
    this.pumpRequests(call, requests).catch((err) => {
      if (!call.done)
        this.cancel(
          call,
          NearwireError.from(err, Code.Canceled).code,
          `request stream failed: ${(err as Error).message}`,
        );
    });
  }

  private async pumpRequests(
    call: ClientCall,
    requests: AsyncIterable<unknown> | Iterable<unknown>,
  ): Promise<void> {
    const channel = this.channel;
    const credit = call.credit as OutboundCredit;
    const head = (slot: Uint8Array) => writeMessageHead(slot, 0, call.id);
    const max = this.maxMessageBytes;
    for await (const request of requests) {
      if (call.done) return;
      const wait = credit.take();
      if (wait !== undefined) await wait;
      if (call.done) return;
      if (sendInPlace(channel, FrameType.Message, 4, head, call.bound.input, request, max))
        continue;
      const bytes = encodeChecked(call.bound.input, request, max, "request");
      if (!channel.send(FrameType.Message, encodeMessage(call.id, bytes))) await channel.drained();
    }
    if (!call.done) channel.send(FrameType.End, encodeCallId(call.id));
  }

  private send(call: ClientCall, type: number, payload: Uint8Array): boolean {
    try {
      this.channel.send(type, payload);
      return true;
    } catch (err) {
      this.settle(call, NearwireError.from(err, Code.Unavailable));
      return false;
    }
  }

  private consumed(call: ClientCall): void {
    call.consumed = returnCredit(this.channel, call.id, call.consumed + 1, call.done);
  }

  /** The caller gives up: fail locally and tell the server. */
  private cancel(call: ClientCall, code: Code, message: string): void {
    if (call.done) return;
    this.settle(call, new NearwireError(code, message));
    if (!this.channel.closed) this.channel.send(FrameType.Cancel, encodeCancel(call.id, code));
  }

  private onFrame(type: number, payload: Uint8Array): void {
    try {
      switch (type) {
        case FrameType.Status: {
          const st = decodeStatus(payload);
          const call = this.calls.get(st.callId);
          if (call === undefined) return;
          if (st.code !== Code.OK) {
            const opts = st.trailers === undefined ? {} : { metadata: st.trailers };
            this.settle(call, new NearwireError(st.code, st.detail, opts), undefined, true);
            return;
          }
          if (st.message !== undefined) this.onMessage(call, st.message);
          if (call.done) return;
          if (call.inbound !== undefined) {
            this.settle(call, undefined);
          } else if (!call.hasLast) {
            this.settle(
              call,
              new NearwireError(
                Code.Internal,
                `${call.bound.kind} call ended OK without a response message`,
              ),
            );
          } else {
            this.settle(call, undefined, call.last);
          }
          return;
        }
        case FrameType.Message: {
          const call = this.calls.get(readCallId(payload, "MESSAGE"));
          if (call !== undefined) this.onMessage(call, payload.subarray(4));
          return;
        }
        case FrameType.Credit: {
          const { callId, credit } = decodeCredit(payload);
          this.calls.get(callId)?.credit?.grant(credit);
          return;
        }
        default:
          throw new NearwireError(
            Code.Internal,
            `unexpected frame type 0x${type.toString(16)} on a client connection`,
            {
              reason: "unknown-frame-type",
            },
          );
      }
    } catch (err) {
      void this.channel.close(NearwireError.from(err, Code.Internal));
    }
  }

  private onMessage(call: ClientCall, bytes: Uint8Array): void {
    if (call.done) return;
    let value: unknown;
    try {
      value = decodeChecked(
        call.bound.output,
        bytes,
        this.channel.transientPayloads,
        this.maxMessageBytes,
        "response",
      );
    } catch (err) {
      const e = NearwireError.from(err, Code.Internal);
      this.cancel(call, e.code, e.message);
      return;
    }
    if (call.inbound !== undefined) {
      if (call.inbound.buffered >= INITIAL_CREDIT * 2) {
        throw new NearwireError(Code.Internal, `call ${call.id}: server sent past its credit`, {
          reason: "protocol-violation",
        });
      }
      call.inbound.push(value);
    } else {
      call.last = value;
      call.hasLast = true;
    }
  }

  /** Ends a call locally: resolves/ends with `value` when `error` is undefined, else fails. */
  private settle(
    call: ClientCall,
    error: NearwireError | undefined,
    value?: unknown,
    keepBuffered = false,
  ): void {
    if (call.done) return;
    call.done = true;
    this.calls.delete(call.id);
    if (call.timer !== undefined) clearTimeout(call.timer);
    if (call.onAbort !== undefined) call.signal?.removeEventListener("abort", call.onAbort);
    if (error !== undefined) call.credit?.fail(error);
    else call.credit?.fail(new NearwireError(Code.OK, "call finished"));
    if (call.inbound !== undefined) {
      if (error === undefined) call.inbound.end();
      else call.inbound.fail(error, keepBuffered);
    } else if (error === undefined) {
      call.resolve?.(value);
    } else {
      call.reject?.(error);
    }
  }

  private onClose(error: NearwireError | undefined): void {
    const message = error === undefined ? "connection closed" : `connection lost: ${error.message}`;
    this.closeError = new NearwireError(Code.Unavailable, message, {
      reason: "peer-closed",
      ...(error ? { cause: error } : {}),
    });
    for (const call of [...this.calls.values()]) this.settle(call, this.closeError);
    this.resolveClosed(error);
  }
}

function timeoutOf(options: CallOptions | undefined): number {
  const t = options?.timeoutMs;
  if (t === undefined) return 0;
  return Math.max(1, Math.min(0xffffffff, Math.ceil(t)));
}
