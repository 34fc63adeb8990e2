/**
 * What the client and the server session share: the channel and its writer, the open calls by
 * id, and the two frames both sides take alike, a BATCH of a call's messages and a CREDIT for
 * its stream (PROTOCOL.md §5.2, §5.4).
 */
import type { Channel } from "../channel.js";
import { Code } from "../code.js";
import type { MessageCodec } from "../codec.js";
import { FrameType, SEND_WINDOW_BYTES } from "../frame-type.js";
import { type ErrorReason, NearwireError } from "../nearwire-error.js";
import { CallTable } from "./call-table.js";
import {
  checkBatch,
  decodeCredit,
  eachBatchMessage,
  MESSAGE_HEAD_BYTES,
  readU32,
} from "./envelope.js";
import { EnvelopeWriter } from "./envelope-writer.js";
import { type InboundCredit, type WindowLimits, windowLimits } from "./inbound-credit.js";
import { messagePool } from "./message-pool.js";
import { OutboundCredit } from "./outbound-credit.js";

/** What the shared frame handling reads of a call, on either side. */
export interface SessionCall {
  readonly id: number;
  /** Flow control of the messages this side receives on the call; streamed ones only. */
  inCredit: InboundCredit | undefined;
  /** Credit for the messages this side sends on the call; streamed ones only. */
  credit: OutboundCredit | undefined;
}

/**
 * Copies a session keeps at most (64): the 2 MiB a stream has on the way in 64 KiB messages
 * (each copy rounded up to 68 KiB: 31 of them) and as many again queued in the handler. With
 * 32, ten 2 MiB uploads at once made a fresh copy for one message in twenty (measured: 0.15 ms
 * of the server's CPU per upload).
 */
const LEND_POOL_COUNT = 64;

/** A message out of a transient frame is lent in a pooled copy from this size (4 KiB) on. */
const LEND_COPY_MIN_BYTES = 4096;

/**
 * Where a lent message is decoded from ({@link Session.lendSource}): `frame[offset … end)`,
 * valid only during the callback if `transient`; `lent` is the buffer that goes back once the
 * consumer is done with the message (none: nothing to give back). One object per session,
 * refilled message after message.
 */
export interface LendSource {
  frame: Uint8Array;
  offset: number;
  end: number;
  transient: boolean;
  lent: Uint8Array | undefined;
}

/** One side of the RPC engine over one channel; `C` is its kind of call. */
export abstract class Session<C extends SessionCall> {
  /** Calls with something pending, by id. */
  readonly calls = new CallTable<C>();
  protected readonly writer: EnvelopeWriter;
  /** How far a stream's receive window may grow on this channel. */
  protected readonly windowLimits: WindowLimits;

  /**
   * A new stream's send credit: held to 2 MiB unacknowledged when the peer credits bytes, or to
   * the byte window it announced.
   */
  protected newOutboundCredit(): OutboundCredit {
    return new OutboundCredit(
      this.channel.peerCreditsBytes === true
        ? (this.channel.peerCreditWindowBytes ?? SEND_WINDOW_BYTES)
        : Number.POSITIVE_INFINITY,
    );
  }

  /** The MESSAGE frame being delivered, when its call lends its messages. */
  private lendable: Uint8Array | undefined;
  /** Copies of large messages out of transient frames, for calls that lend their messages. */
  private readonly copies = messagePool(LEND_POOL_COUNT);
  private readonly lent: LendSource = {
    frame: EMPTY,
    offset: 0,
    end: 0,
    transient: false,
    lent: undefined,
  };
  /** Gives a lent buffer back: to the copies' pool if it is one of them, else to the channel. */
  protected readonly reclaim = (frame: Uint8Array): void => {
    if (this.copies.owns(frame)) this.copies.give(frame);
    else this.channel.reclaim?.(frame);
  };

  constructor(
    readonly channel: Channel,
    private readonly messageLimitBytes: number,
    /** Which end of the connection this is, as its protocol errors say. */
    private readonly side: "client" | "server",
  ) {
    this.writer = new EnvelopeWriter(channel, messageLimitBytes);
    this.windowLimits = windowLimits(channel.inboundCapacityBytes, channel.creditWindowBytes);
  }

  /**
   * A MESSAGE frame of `call`: when the call `lends` its messages (`lendMessages`), the frame,
   * which holds this one message and nothing else refers to, may be lent with it.
   */
  protected onMessageFrame(call: C, payload: Uint8Array, lends: boolean): void {
    const transient = this.channel.transientPayloads;
    if (lends && !transient) this.lendable = payload;
    try {
      this.onMessage(call, payload, MESSAGE_HEAD_BYTES, payload.byteLength, transient);
    } finally {
      this.lendable = undefined;
    }
  }

  /**
   * Where a streamed message of a call that lends its messages is decoded from, and what is lent
   * with it: a large one (≥ 4 KiB) out of a transient frame (a ring slot), for a codec that
   * decodes in place or into bytes it owns (`decodeOwnedRange`), is copied into a buffer of the
   * session's pool, lent and given back to the pool; one alone in its MESSAGE frame lends that
   * frame (back to the channel); else nothing. What is lent is the message's own: the codec may
   * decode it with `decodeOwnedRange`.
   */
  protected lendSource(
    frame: Uint8Array,
    offset: number,
    end: number,
    transient: boolean,
    codec: MessageCodec<unknown>,
  ): LendSource {
    const s = this.lent;
    const n = end - offset;
    if (
      transient &&
      (codec.decodesInPlace || codec.decodeOwnedRange !== undefined) &&
      n >= LEND_COPY_MIN_BYTES &&
      n <= this.messageLimitBytes
    ) {
      const copy = this.copies.take(n) ?? this.copies.make(n);
      copy.set(frame.subarray(offset, end));
      s.frame = copy;
      s.offset = 0;
      s.end = n;
      s.transient = false;
      s.lent = copy;
    } else {
      s.frame = frame;
      s.offset = offset;
      s.end = end;
      s.transient = transient;
      s.lent = frame === this.lendable ? frame : undefined;
    }
    return s;
  }

  /** A message this side receives on `call`: `frame[offset … end)`, valid only during the callback if `transient`. */
  protected abstract onMessage(
    call: C,
    frame: Uint8Array,
    offset: number,
    end: number,
    transient: boolean,
  ): void;

  /**
   * A frame for an id that is not active: ignored when that call was started (it ended; the
   * peer sent before it knew), a violation when it never was.
   */
  protected abstract checkStarted(id: number, what: string): void;

  /** The codec of the messages this side receives on `call` (requests or responses). */
  protected abstract inboundCodec(call: C): MessageCodec<unknown>;

  /**
   * False once `call` takes no more messages: its BATCH is then not held to its credit, and
   * onMessage refuses or drops each message as it would a MESSAGE's.
   */
  protected abstract receiving(call: C): boolean;

  /**
   * A BATCH (PROTOCOL.md §5.2): its layout and the call's credit are checked for the whole
   * frame first, then each message is taken as a MESSAGE of the call would be. A ring's frame
   * is copied once, when the codec keeps views of it, instead of once per message.
   */
  protected onBatch(p: Uint8Array): void {
    if (this.channel.acceptsBatches !== true) throw this.unknownType(FrameType.Batch);
    const count = checkBatch(p);
    const id = readU32(p, 0);
    const call = this.calls.get(id);
    if (call === undefined) {
      this.checkStarted(id, "BATCH");
      return;
    }
    // A BATCH past the credit allowance is refused whole: none of its messages is delivered.
    if (call.inCredit !== undefined && this.receiving(call) && !call.inCredit.allows(count))
      throw this.pastCredit(id);
    eachBatchMessage(
      p,
      this.channel.transientPayloads,
      this.inboundCodec(call).decodesInPlace,
      (frame, start, end, transient) => this.onMessage(call, frame, start, end, transient),
    );
  }

  /** A CREDIT (PROTOCOL.md §5.4): the peer takes `credit` more messages of the call's stream. */
  protected onCredit(p: Uint8Array): void {
    const { callId, credit } = decodeCredit(p);
    const call = this.calls.get(callId);
    if (call !== undefined) call.credit?.grant(credit);
    else this.checkStarted(callId, "CREDIT");
  }

  /** The peer sent call `id` more messages than it had credit for (PROTOCOL.md §5.4). */
  protected pastCredit(id: number): NearwireError {
    return protocolError(
      `call ${id}: ${this.side === "server" ? "peer" : "server"} sent past its credit`,
    );
  }

  /** A frame type this side never accepts (PROTOCOL.md §5.7). */
  protected unknownType(type: number): NearwireError {
    return protocolError(
      type === FrameType.Batch
        ? `BATCH (0x16) on a ${this.side} connection whose HELLO did not announce BATCH (PROTOCOL.md §4.1)`
        : `unexpected frame type 0x${type.toString(16)} on a ${this.side} connection`,
      "unknown-frame-type",
    );
  }
}

const EMPTY = new Uint8Array(0);

/** INTERNAL with `reason` (by default `protocol-violation`): the peer broke the protocol. */
export function protocolError(
  message: string,
  reason: ErrorReason = "protocol-violation",
): NearwireError {
  return new NearwireError(Code.Internal, message, { reason });
}
