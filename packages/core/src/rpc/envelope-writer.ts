/** Writes the engine's hot frames straight into the channel's buffer when it can. */
import type { Channel } from "../channel.js";
import { Code } from "../code.js";
import type { MessageCodec } from "../codec.js";
import { FrameType } from "../frame-type.js";
import { NearwireError } from "../nearwire-error.js";
import { encodeChecked } from "./bound-method.js";
import {
  BATCH_ENTRY_HEAD_BYTES,
  BATCH_HEAD_BYTES,
  encodeCredit,
  FLAG_HAS_MESSAGE,
  MESSAGE_HEAD_BYTES,
  REQUEST_HEAD_BYTES,
  STATUS_HEAD_BYTES,
  writeMessageHead,
  writeOkStatusHead,
  writeRequestHead,
} from "./envelope.js";
import { MessageBatch } from "./message-batch.js";

/**
 * Largest BATCH payload the engine builds, bytes (a peer's smaller frame limit lowers it). A
 * batch is sent when the next message would not fit, before any other frame, and at the end of
 * the tick (`process.nextTick`: when the stream's source pauses), so a message waits for no
 * turn of the event loop.
 */
export const BATCH_BYTES = 4096;

enum Head {
  Request,
  Message,
  OkStatus,
}

/**
 * Writes the engine's hot frames — REQUEST without metadata, MESSAGE, OK STATUS with its
 * response — with the message encoded straight behind its envelope head in the channel's send
 * buffer (`Channel.sendWith` + `MessageCodec.encodeIntoRange` or `encodeInto`): no intermediate
 * message or frame buffer and no closure per frame (one `fill` function per writer, its
 * arguments in fields).
 *
 * When the channel has no `sendWith`, has no contiguous room, or the codec has neither
 * `encodeIntoRange` nor `encodeInto`, the message is encoded to its own bytes ({@link encodeChecked}, which also
 * reports encode failures and the size limit as typed errors) and copied behind the head.
 *
 * When the peer takes BATCH frames (`Channel.peerAcceptsBatches`), a stream's messages are
 * gathered per call into one {@link MessageBatch} of up to {@link BATCH_BYTES} and sent as
 * one BATCH (one alone as a MESSAGE): a frame's costs (its header, its CRC-32C, a ring
 * record's atomic stores, the receiver's dispatch) are paid once for many small messages.
 * Every frame goes out through this writer, which sends the batch first: the peer sees the
 * frames in the order the engine made them.
 */
export class EnvelopeWriter {
  private head = Head.Request;
  private callId = 0;
  private flags = 0;
  private timeoutMs = 0;
  private pathBytes: Uint8Array = EMPTY;
  private codec: MessageCodec<unknown> | undefined;
  private value: unknown;
  private encoded: Uint8Array | undefined;
  private readonly fill = (dest: Uint8Array, offset: number, limit: number): number =>
    this.fillSlot(dest, offset, limit);
  /** The stream messages waiting to go out together; undefined when the peer takes no BATCH. */
  private readonly batch: MessageBatch | undefined;
  private flushScheduled = false;
  /** Encoded size of the last stream message: one of more than a quarter batch goes alone. */
  private lastMessageBytes = 0;
  /** What the last `channel.send` of a batch returned (channels without `backpressured`). */
  private room = true;
  /** The batch payload being sent: `batch.bytes[batchStart … batchEnd)`. */
  private batchStart = 0;
  private batchEnd = 0;
  private readonly fillBatch = (dest: Uint8Array, offset: number, limit: number): number => {
    const n = this.batchEnd - this.batchStart;
    if (n > limit) return -1;
    dest.set((this.batch as MessageBatch).bytes.subarray(this.batchStart, this.batchEnd), offset);
    return n;
  };
  private readonly flushOnTick = (): void => {
    this.flushScheduled = false;
    try {
      this.flush();
    } catch (err) {
      if (!this.channel.closed) void this.channel.close(NearwireError.from(err, Code.Internal));
    }
  };

  constructor(
    private readonly channel: Channel,
    private readonly maxMessageBytes: number,
  ) {
    this.batch =
      channel.peerAcceptsBatches === true
        ? new MessageBatch(Math.min(BATCH_BYTES, channel.maxPayloadBytes))
        : undefined;
  }

  /** Sends a frame made elsewhere (after the batch, see the class doc); returns `channel.send`'s room. */
  send(type: number, payload: Uint8Array): boolean {
    this.flush();
    return this.channel.send(type, payload);
  }

  /**
   * Closes the channel cleanly after sending what the batch holds (a channel already closed:
   * the messages are dropped, as its calls have failed).
   */
  close(): Promise<void> {
    try {
      this.flush();
    } catch {
      // closed already
    }
    return this.channel.close();
  }

  /**
   * Sends the batch, if it holds messages: as one BATCH frame, or as a MESSAGE when it holds
   * one. Throws the channel's error (UNAVAILABLE when it is closed; the messages are dropped).
   */
  flush(): void {
    const batch = this.batch;
    if (batch === undefined || batch.count === 0) return;
    const bytes = batch.bytes;
    let type: number = FrameType.Batch;
    let start = 0;
    if (batch.count === 1) {
      // MESSAGE: its head ends where the one entry's message starts (over the entry's length).
      start = BATCH_HEAD_BYTES + BATCH_ENTRY_HEAD_BYTES - MESSAGE_HEAD_BYTES;
      writeMessageHead(bytes, start, batch.callId);
      type = FrameType.Message;
    }
    const end = batch.length;
    const channel = this.channel;
    if (channel.sendWith !== undefined) {
      this.batchStart = start;
      this.batchEnd = end;
      if (channel.sendWith(type, this.fillBatch)) {
        batch.reset(true);
        return;
      }
    }
    // `send` may keep a view of the payload: the batch takes a new buffer.
    batch.reset(false);
    this.room = channel.send(type, bytes.subarray(start, end));
  }

  /**
   * Sends a REQUEST with its (only) message inline. Throws INTERNAL `encode-failed`,
   * RESOURCE_EXHAUSTED `message-too-large`, or the channel's error.
   */
  request(
    callId: number,
    flags: number,
    timeoutMs: number,
    pathBytes: Uint8Array,
    codec: MessageCodec<unknown>,
    value: unknown,
  ): boolean {
    this.head = Head.Request;
    this.timeoutMs = timeoutMs;
    this.flags = flags | FLAG_HAS_MESSAGE;
    this.pathBytes = pathBytes;
    this.flush();
    return this.encodeAndSend(FrameType.Request, callId, codec, value, "request");
  }

  /**
   * Sends a stream's message: into the batch when the peer takes BATCH frames, else (or when it
   * does not fit there) as a MESSAGE. Returns the channel's backpressure signal (false: above
   * the high-water mark, also after `sendWith`); throws like {@link request}.
   */
  message(callId: number, codec: MessageCodec<unknown>, value: unknown, what: string): boolean {
    const batch = this.batch;
    if (batch !== undefined && this.lastMessageBytes <= batch.capacity >>> 2) {
      if (batch.count > 0 && (batch.callId !== callId || batch.room < this.lastMessageBytes))
        this.flush();
      const n = batch.add(callId, codec, value, this.maxMessageBytes);
      if (n >= 0) {
        this.lastMessageBytes = n;
        if (batch.room < n) this.flush();
        else if (!this.flushScheduled) {
          this.flushScheduled = true;
          process.nextTick(this.flushOnTick);
        }
        const channel = this.channel;
        return channel.sendWith !== undefined ? channel.backpressured !== true : this.room;
      }
    }
    this.flush();
    this.head = Head.Message;
    return this.encodeAndSend(FrameType.Message, callId, codec, value, what);
  }

  /** The encoded size of the last stream message {@link message} sent, bytes. */
  get messageBytes(): number {
    return this.lastMessageBytes;
  }

  /** Sends an OK STATUS carrying the response; returns and throws like {@link message}. */
  okStatus(callId: number, codec: MessageCodec<unknown>, value: unknown): boolean {
    this.head = Head.OkStatus;
    this.flush();
    return this.encodeAndSend(FrameType.Status, callId, codec, value, "response");
  }

  /** Sends a CREDIT frame granting `credit` more messages on `callId`. */
  credit(callId: number, credit: number): void {
    this.send(FrameType.Credit, encodeCredit(callId, credit));
  }

  private encodeAndSend(
    type: number,
    callId: number,
    codec: MessageCodec<unknown>,
    value: unknown,
    what: string,
  ): boolean {
    this.callId = callId;
    this.codec = codec;
    this.value = value;
    const channel = this.channel;
    try {
      if (
        channel.sendWith !== undefined &&
        (codec.encodeIntoRange !== undefined || codec.encodeInto !== undefined)
      ) {
        if (channel.sendWith(type, this.fill)) return channel.backpressured !== true;
        if (channel.closed) throw channelClosed(channel.peer);
      }
      const encoded = encodeChecked(codec, value, this.maxMessageBytes, what);
      if (this.head === Head.Message) this.lastMessageBytes = encoded.byteLength;
      if (channel.sendWith !== undefined) {
        this.encoded = encoded;
        if (channel.sendWith(type, this.fill)) return channel.backpressured !== true;
      }
      const headBytes = this.headBytes();
      const out = new Uint8Array(headBytes + encoded.byteLength);
      this.writeHead(out, 0);
      out.set(encoded, headBytes);
      return channel.send(type, out);
    } finally {
      this.codec = undefined;
      this.value = undefined;
      this.encoded = undefined;
    }
  }

  private headBytes(): number {
    switch (this.head) {
      case Head.Request:
        return REQUEST_HEAD_BYTES + this.pathBytes.byteLength;
      case Head.Message:
        return MESSAGE_HEAD_BYTES;
      default:
        return STATUS_HEAD_BYTES;
    }
  }

  private writeHead(out: Uint8Array, at: number): void {
    switch (this.head) {
      case Head.Request:
        writeRequestHead(out, at, this.callId, this.flags, this.timeoutMs, this.pathBytes);
        return;
      case Head.OkStatus:
        writeOkStatusHead(out, at, this.callId);
        return;
      default:
        writeMessageHead(out, at, this.callId);
    }
  }

  private fillSlot(dest: Uint8Array, offset: number, limit: number): number {
    const headBytes = this.headBytes();
    if (limit <= headBytes) return -1;
    let n: number;
    const encoded = this.encoded;
    if (encoded !== undefined) {
      n = encoded.byteLength;
      if (headBytes + n > limit) return -1;
      dest.set(encoded, offset + headBytes);
    } else {
      const codec = this.codec as MessageCodec<unknown>;
      try {
        // A codec with encodeIntoRange gets `dest` and the slot's bounds; otherwise, when the
        // slot runs to the end of `dest`, `dest` itself, else a view bounded to the slot, so
        // that no codec writes past it.
        if (codec.encodeIntoRange !== undefined)
          n = codec.encodeIntoRange(this.value, dest, offset + headBytes, offset + limit);
        else {
          const encodeInto = codec.encodeInto as NonNullable<MessageCodec<unknown>["encodeInto"]>;
          n =
            offset + limit === dest.byteLength
              ? encodeInto.call(codec, this.value, dest, offset + headBytes)
              : encodeInto.call(
                  codec,
                  this.value,
                  dest.subarray(offset, offset + limit),
                  headBytes,
                );
        }
      } catch {
        return -1; // re-encoded on the copying path, which reports the error
      }
      if (n < 0 || n > this.maxMessageBytes || headBytes + n > limit) return -1;
      if (this.head === Head.Message) this.lastMessageBytes = n;
    }
    this.writeHead(dest, offset);
    return headBytes + n;
  }
}

const EMPTY = new Uint8Array(0);

/** Thrown when a call's message cannot be sent because the channel is closed. */
export function channelClosed(peer: string): NearwireError {
  return new NearwireError(Code.Unavailable, `channel to ${peer} is closed`, {
    reason: "peer-closed",
  });
}
