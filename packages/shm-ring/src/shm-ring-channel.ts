import type { Socket } from "node:net";
import type { Channel, Peer } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import type { WaitMode } from "@nearwire/ring";
import { RingChannel } from "@nearwire/ring";
import {
  BELL_DATA,
  BELL_DATA_BUF,
  BELL_SPACE,
  BELL_SPACE_BUF,
  CLOSE,
  CLOSE_BUF,
  ControlReads,
  GOAWAY,
  goAwayError,
  goAwayFrame,
} from "./control-socket.js";
import type { Segment } from "./segment.js";

const EMPTY = Buffer.alloc(0);

/** What a channel is built from, after the handshake. */
export interface ShmRingChannelParts {
  socket: Socket;
  segment: Segment;
  /** Ring this side writes (0 for the client, 1 for the server). */
  sendRing: 0 | 1;
  /** Frame limit agreed in the handshake (absent: one record, the peer does not fragment). */
  maxFrameBytes?: number;
  /** What the handshake said about BATCH frames (`features`, PROTOCOL.md §6.1). Default false. */
  acceptsBatches?: boolean;
  peerAcceptsBatches?: boolean;
  peerCreditsBytes?: boolean;
  /** The byte windows the handshake announced (PROTOCOL.md §5.4, §6.1), as both sides read them. */
  peerCreditWindowBytes?: number | undefined;
  creditWindowBytes?: number | undefined;
  wait: WaitMode;
  spinUs: number;
  peer: string;
  /** Server side: the peer read on accept (`SO_PEERCRED`), handed to handlers as `ctx.peer`. */
  peerCredentials?: Peer;
  /** Control bytes that arrived with the last handshake frame. */
  leftover: Buffer;
  /**
   * The control socket's reads, when a handshake began them (`HandshakeReader.reads`: through
   * the socket's `SocketReader`); without, the channel reads the socket's `data` events.
   */
  reads?: ControlReads;
}

/**
 * A {@link Channel} over a pair of shared-memory rings (the send / receive loop is
 * {@link RingChannel}'s); doorbells and the peer's end come over the control socket. Payload
 * views handed to `onFrame` point into the ring and are valid only until it returns
 * (`transientPayloads`).
 */
export class ShmRingChannel extends RingChannel implements Channel {
  readonly peerCredentials: Peer | undefined;
  private readonly socket: Socket;
  private readonly segment: Segment;
  private control: Buffer = EMPTY;
  private endError: NearwireError | undefined;

  constructor(parts: ShmRingChannelParts) {
    super({
      buffer: parts.segment.buffer,
      ringBytes: parts.segment.ringBytes,
      sendRing: parts.sendRing,
      ...(parts.maxFrameBytes === undefined ? {} : { maxFrameBytes: parts.maxFrameBytes }),
      wait: parts.wait,
      spinUs: parts.spinUs,
      peer: parts.peer,
      acceptsBatches: parts.acceptsBatches === true,
      peerAcceptsBatches: parts.peerAcceptsBatches === true,
      peerCreditsBytes: parts.peerCreditsBytes === true,
      peerCreditWindowBytes: parts.peerCreditWindowBytes,
      creditWindowBytes: parts.creditWindowBytes,
    });
    this.socket = parts.socket;
    this.segment = parts.segment;
    this.peerCredentials = parts.peerCredentials;
    (parts.reads ?? new ControlReads(parts.socket, undefined)).handler = this.onControl;
    this.socket.on("close", this.onSocketClose);
    this.socket.on("error", () => {});
    if (parts.leftover.length > 0) this.onControl(parts.leftover);
  }

  /** Bytes of the shared segment (both rings and the header): fixed for the connection. */
  get segmentBytes(): number {
    return this.segment.buffer.byteLength;
  }

  protected ringData(): void {
    this.socket.write(BELL_DATA_BUF);
  }

  protected ringSpace(): void {
    this.socket.write(BELL_SPACE_BUF);
  }

  /** Parked: the `D` doorbell on the control socket wakes the loop. */
  protected sleep(): void {
    this.sleeping = true;
  }

  /** The `S` doorbell on the control socket flushes the queue. */
  protected spaceBlocked(): void {}

  protected endCleanly(): void {
    this.socket.end(CLOSE_BUF);
  }

  protected peerEndError(): NearwireError | undefined {
    return this.endError;
  }

  private setPeerEnd(error: NearwireError | undefined): void {
    this.peerEnded = true;
    this.endError = error;
  }

  private readonly onControl = (chunk: Buffer): void => {
    this.control = this.control.length === 0 ? chunk : Buffer.concat([this.control, chunk]);
    let i = 0;
    const c = this.control;
    while (i < c.length && !this.peerEnded) {
      const b = c[i] as number;
      if (b === BELL_DATA) {
        i++;
        if (this.sleeping) this.wakeUp();
      } else if (b === BELL_SPACE) {
        i++;
        this.flushPending();
      } else if (b === CLOSE) {
        i++;
        this.setPeerEnd(undefined);
      } else if (b === GOAWAY) {
        if (c.length < i + 3) break;
        const n = c.readUInt16BE(i + 1);
        if (c.length < i + 3 + n) break;
        this.setPeerEnd(goAwayError(c.subarray(i + 3, i + 3 + n)));
        i += 3 + n;
      } else {
        this.setPeerEnd(
          new NearwireError(Code.Internal, `unknown shm-ring control byte 0x${b.toString(16)}`, {
            reason: "protocol-violation",
          }),
        );
        i = c.length;
      }
    }
    // What is kept is copied: the bytes read are valid only during this call (ControlReads).
    this.control = i === c.length ? EMPTY : Buffer.from(c.subarray(i));
    if (this.peerEnded && this.handler !== undefined) this.onPeerEnd();
  };

  private readonly onSocketClose = (): void => {
    if (this.state === "closed") return;
    if (!this.peerEnded) {
      this.setPeerEnd(
        new NearwireError(
          Code.Unavailable,
          `shm-ring peer ${this.peer} closed the control socket`,
          { reason: "peer-closed" },
        ),
      );
    }
    if (this.handler !== undefined) this.onPeerEnd();
  };

  /** Closing at once: tells the peer why (`G`, when `tellPeer`), unmaps after this turn. */
  protected release(error: NearwireError | undefined, tellPeer: boolean): void {
    if (tellPeer && error !== undefined && !this.socket.destroyed)
      this.socket.end(goAwayFrame(error));
    else this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
    setImmediate(() => this.segment.release());
  }
}
