import type { Channel } from "../channel.js";
import { Code } from "../code.js";
import { FrameType } from "../frame-type.js";
import { NearwireError } from "../nearwire-error.js";
import { type BoundMethod, decodeChecked, encodeChecked } from "./bound-method.js";
import {
  decodeCancel,
  decodeCredit,
  decodeRequest,
  encodeMessage,
  encodeStatus,
  FLAG_END_STREAM,
  INITIAL_CREDIT,
  type RequestFrame,
  readCallId,
  writeMessageHead,
  writeOkStatusHead,
} from "./envelope.js";
import { InboundStream } from "./inbound-stream.js";
import { OutboundCredit, returnCredit } from "./outbound-credit.js";
import { canSendInPlace, sendInPlace } from "./send-in-place.js";
import { ServerCall } from "./server-call.js";

/** What a session needs from its server. */
export interface ServerSessionHost {
  readonly methods: ReadonlyMap<
    string,
    { bound: BoundMethod; impl: (...args: never[]) => unknown }
  >;
  readonly maxMessageBytes: number;
  readonly draining: boolean;
  sessionClosed(session: ServerSession): void;
  callsChanged(): void;
}

type AnyImpl = (input: unknown, ctx: ServerCall) => unknown;

/** Serves calls arriving on one channel. */
export class ServerSession {
  readonly calls = new Map<number, ServerCall>();
  private closed = false;

  constructor(
    readonly channel: Channel,
    private readonly host: ServerSessionHost,
  ) {
    channel.start({
      onFrame: (type, payload) => this.onFrame(type, payload),
      onClose: (error) => this.onClose(error),
    });
  }

  /** Cancels every call with `code` (their handlers see the abort) and closes the channel. */
  async shutdown(code: Code, message: string): Promise<void> {
    for (const call of this.calls.values()) {
      this.finish(call, code, message);
    }
    await this.channel.close();
  }

  private onFrame(type: number, payload: Uint8Array): void {
    try {
      switch (type) {
        case FrameType.Request:
          this.onRequest(decodeRequest(payload));
          return;
        case FrameType.Message:
          this.onMessage(readCallId(payload, "MESSAGE"), payload.subarray(4));
          return;
        case FrameType.End:
          if (payload.byteLength !== 4) throw protocolError("malformed END frame");
          this.onEnd(readCallId(payload, "END"));
          return;
        case FrameType.Cancel: {
          const { callId, code } = decodeCancel(payload);
          const call = this.calls.get(callId);
          if (call !== undefined) {
            call.finished = true;
            this.drop(call, code, "cancelled by client");
          }
          return;
        }
        case FrameType.Credit: {
          const { callId, credit } = decodeCredit(payload);
          this.calls.get(callId)?.credit?.grant(credit);
          return;
        }
        default:
          throw protocolError(
            `unexpected frame type 0x${type.toString(16)} on a server connection`,
            "unknown-frame-type",
          );
      }
    } catch (err) {
      const e = NearwireError.from(err, Code.Internal);
      void this.channel.close(e);
    }
  }

  private onRequest(req: RequestFrame): void {
    const id = req.callId;
    if (this.calls.has(id)) throw protocolError(`call id ${id} is already in use`);
    if (this.host.draining) {
      this.sendStatus(id, Code.Unavailable, "server is shutting down", undefined, undefined);
      return;
    }
    const entry = this.host.methods.get(req.method);
    if (entry === undefined) {
      this.sendStatus(
        id,
        Code.Unimplemented,
        `method ${req.method} not found`,
        undefined,
        undefined,
      );
      return;
    }
    const { bound } = entry;
    const impl = entry.impl as unknown as AnyImpl;
    const call = new ServerCall(id, bound, req.metadata, req.timeoutMs);
    this.calls.set(id, call);
    this.host.callsChanged();
    if (req.timeoutMs > 0) {
      call.timer = setTimeout(() => {
        this.finish(call, Code.DeadlineExceeded, `deadline of ${req.timeoutMs} ms exceeded`);
      }, req.timeoutMs);
    }
    const ended = (req.flags & FLAG_END_STREAM) !== 0;
    if (bound.kind === "unary" || bound.kind === "server_streaming") {
      if (req.message !== undefined && ended) {
        const input = this.decodeRequestMessage(call, req.message);
        if (input !== NOTHING) this.run(call, impl, input);
      } else {
        call.single = { count: 0 };
        if (req.message !== undefined) this.onMessage(id, req.message);
        if (ended) this.onEnd(id);
      }
      return;
    }
    call.inbound = new InboundStream<unknown>(
      () => this.consumed(call),
      () => undefined,
    );
    if (req.message !== undefined) this.onMessage(id, req.message);
    if (ended) call.inbound.end();
    this.run(call, impl, call.inbound);
  }

  private onMessage(id: number, bytes: Uint8Array): void {
    const call = this.calls.get(id);
    if (call === undefined || call.finished) return;
    if (call.single !== undefined) {
      call.single.count++;
      if (call.single.count > 1) {
        this.finish(
          call,
          Code.InvalidArgument,
          `${call.bound.kind} call got more than one request message`,
        );
        return;
      }
      const input = this.decodeRequestMessage(call, bytes);
      if (input !== NOTHING) call.single.value = input;
      return;
    }
    const inbound = call.inbound;
    if (inbound === undefined) return;
    if (inbound.buffered >= INITIAL_CREDIT * 2) {
      throw protocolError(`call ${id}: peer sent past its credit`);
    }
    const input = this.decodeRequestMessage(call, bytes);
    if (input !== NOTHING) inbound.push(input);
  }

  private onEnd(id: number): void {
    const call = this.calls.get(id);
    if (call === undefined || call.finished) return;
    const single = call.single;
    if (single !== undefined) {
      if (single.count !== 1) {
        this.finish(
          call,
          Code.InvalidArgument,
          `${call.bound.kind} call got ${single.count} request messages`,
        );
        return;
      }
      call.single = undefined;
      const entry = this.host.methods.get(call.bound.path);
      if (entry !== undefined) this.run(call, entry.impl as unknown as AnyImpl, single.value);
      return;
    }
    call.inbound?.end();
  }

  private decodeRequestMessage(call: ServerCall, bytes: Uint8Array): unknown {
    try {
      return decodeChecked(
        call.bound.input,
        bytes,
        this.channel.transientPayloads,
        this.host.maxMessageBytes,
        "request",
      );
    } catch (err) {
      const e = NearwireError.from(err, Code.InvalidArgument);
      this.finish(call, e.code, e.message);
      return NOTHING;
    }
  }

  private consumed(call: ServerCall): void {
    call.consumed = returnCredit(this.channel, call.id, call.consumed + 1, call.finished);
  }

  private run(call: ServerCall, impl: AnyImpl, input: unknown): void {
    const kind = call.bound.kind;
    let result: unknown;
    try {
      result = impl(input, call);
    } catch (err) {
      this.fail(call, err);
      return;
    }
    if (kind === "unary" || kind === "client_streaming") {
      if (result instanceof Promise) {
        result.then(
          (value) => this.reply(call, value),
          (err) => this.fail(call, err),
        );
      } else {
        this.reply(call, result);
      }
      return;
    }
    this.pump(call, result as AsyncIterable<unknown>).then(
      () => this.finish(call, Code.OK, ""),
      (err) => this.fail(call, err),
    );
  }

  private async pump(call: ServerCall, source: AsyncIterable<unknown>): Promise<void> {
    const channel = this.channel;
    const credit = new OutboundCredit();
    call.credit = credit;
    const head = (slot: Uint8Array) => writeMessageHead(slot, 0, call.id);
    const max = this.host.maxMessageBytes;
    for await (const value of source) {
      if (call.finished) return;
      const wait = credit.take();
      if (wait !== undefined) await wait;
      if (call.finished) return;
      if (sendInPlace(channel, FrameType.Message, 4, head, call.bound.output, value, max)) continue;
      const bytes = encodeChecked(call.bound.output, value, max, "response");
      if (!channel.send(FrameType.Message, encodeMessage(call.id, bytes))) await channel.drained();
    }
  }

  private reply(call: ServerCall, value: unknown): void {
    if (call.finished) return;
    if (
      call.trailersIfAny === undefined &&
      !this.channel.closed &&
      canSendInPlace(this.channel, call.bound.output)
    ) {
      const head = (slot: Uint8Array) => writeOkStatusHead(slot, 0, call.id);
      const max = this.host.maxMessageBytes;
      if (sendInPlace(this.channel, FrameType.Status, 8, head, call.bound.output, value, max)) {
        call.finished = true;
        this.drop(call, Code.OK, "");
        return;
      }
    }
    let bytes: Uint8Array;
    try {
      bytes = encodeChecked(call.bound.output, value, this.host.maxMessageBytes, "response");
    } catch (err) {
      this.fail(call, err);
      return;
    }
    call.finished = true;
    this.sendStatus(call.id, Code.OK, "", call.trailersIfAny, bytes);
    this.drop(call, Code.OK, "");
  }

  private fail(call: ServerCall, err: unknown): void {
    if (call.finished) return;
    const e = NearwireError.from(err, Code.Unknown);
    this.finish(call, e.code === Code.OK ? Code.Unknown : e.code, e.message, e.metadata);
  }

  /** Sends the final STATUS (once) and forgets the call. */
  private finish(
    call: ServerCall,
    code: Code,
    message: string,
    trailers?: Record<string, string>,
  ): void {
    if (!call.finished) {
      call.finished = true;
      let md = call.trailersIfAny;
      if (trailers !== undefined && Object.keys(trailers).length > 0) md = { ...md, ...trailers };
      this.sendStatus(call.id, code, message, md, undefined);
    }
    this.drop(call, code, message);
  }

  private drop(call: ServerCall, code: Code, message: string): void {
    if (this.calls.get(call.id) !== call) return;
    this.calls.delete(call.id);
    if (call.timer !== undefined) clearTimeout(call.timer);
    if (code !== Code.OK) call.abort(code, message);
    this.host.callsChanged();
  }

  private sendStatus(
    id: number,
    code: Code,
    message: string,
    trailers: Record<string, string> | undefined,
    body: Uint8Array | undefined,
  ): void {
    if (this.channel.closed) return;
    try {
      this.channel.send(FrameType.Status, encodeStatus(id, code, message, trailers, body));
    } catch (err) {
      // The response (or its trailers) does not fit the channel: tell the client why instead.
      const e = NearwireError.from(err, Code.Internal);
      if (this.channel.closed) return;
      this.channel.send(
        FrameType.Status,
        encodeStatus(id, e.code, `response not sent: ${e.message}`, undefined, undefined),
      );
    }
  }

  private onClose(error: NearwireError | undefined): void {
    if (this.closed) return;
    this.closed = true;
    const reason = error?.message ?? "connection closed";
    for (const call of [...this.calls.values()]) {
      call.finished = true;
      this.drop(call, Code.Unavailable, `connection lost: ${reason}`);
    }
    this.host.sessionClosed(this);
  }
}

const NOTHING: unique symbol = Symbol("nothing");

function protocolError(
  message: string,
  reason: "protocol-violation" | "unknown-frame-type" = "protocol-violation",
): NearwireError {
  return new NearwireError(Code.Internal, message, { reason });
}
