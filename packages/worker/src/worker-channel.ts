import type { MessagePort } from "node:worker_threads";
import type { Channel, NearwireError } from "@nearwire/core";
import { CONTROL, RING_CONTROL_OFFSETS, RingChannel } from "@nearwire/ring";
import type { WaitMode } from "./worker-options.js";
import { readEnd, writeEnd } from "./worker-segment.js";

/** `RESOLVED.then(f)` queues `f` as a microtask. */
const RESOLVED = Promise.resolve();

/** What a channel is built from, after the handshake. */
export interface WorkerChannelParts {
  /** The segment (PROTOCOL.md §6 layout) both threads share. */
  buffer: SharedArrayBuffer;
  ringBytes: number;
  /** Frame limit agreed at set-up. */
  maxFrameBytes: number;
  /** What the set-up said about BATCH frames (`features`). */
  acceptsBatches: boolean;
  peerAcceptsBatches: boolean;
  peerCreditsBytes: boolean;
  /** The byte window the peer announced, and this side's, as both sides read them (§5.4). */
  peerCreditWindowBytes?: number | undefined;
  creditWindowBytes?: number | undefined;
  /** This side: 0 for the connector (writes ring 0), 1 for the listener (writes ring 1). */
  side: 0 | 1;
  /** The connection's own port: its `close` event is the peer's end (or death). */
  port: MessagePort;
  wait: WaitMode;
  spinUs: number;
  peer: string;
  /** Why the peer died, when its owner learnt it (named in the `peer-closed` message). */
  deathCause?: () => string | undefined;
}

/**
 * A {@link Channel} between two threads over a pair of rings in a `SharedArrayBuffer` (the
 * send / receive loop is {@link RingChannel}'s, shared with shm-ring). Payload views handed to
 * `onFrame` point into the ring and are valid only until it returns (`transientPayloads`).
 * Wake-ups are `Atomics.notify` on the ring's parked / waiting words, sent only when the other
 * side set them; sleeping is `Atomics.waitAsync`, so no thread's event loop is ever blocked.
 */
export class WorkerChannel extends RingChannel implements Channel {
  private readonly buffer: SharedArrayBuffer;
  private readonly i32: Int32Array;
  private readonly side: 0 | 1;
  private readonly port: MessagePort;
  private readonly deathCause: (() => string | undefined) | undefined;
  /** Word the peer sleeps on (its receive ring's parked flag): notified after a write. */
  private readonly peerParkedIndex: number;
  /** Word this side sleeps on while parked. */
  private readonly parkedIndex: number;
  /** Word this side waits on for space in its send ring. */
  private readonly spaceIndex: number;
  /** Word the peer waits on for space (its send ring's waiting flag): notified after a read. */
  private readonly peerSpaceIndex: number;
  private spaceWaitArmed = false;

  constructor(parts: WorkerChannelParts) {
    super({
      buffer: parts.buffer,
      ringBytes: parts.ringBytes,
      sendRing: parts.side,
      maxFrameBytes: parts.maxFrameBytes,
      acceptsBatches: parts.acceptsBatches,
      peerAcceptsBatches: parts.peerAcceptsBatches,
      peerCreditsBytes: parts.peerCreditsBytes,
      peerCreditWindowBytes: parts.peerCreditWindowBytes,
      creditWindowBytes: parts.creditWindowBytes,
      wait: parts.wait,
      spinUs: parts.spinUs,
      peer: parts.peer,
    });
    this.buffer = parts.buffer;
    this.i32 = new Int32Array(parts.buffer);
    this.side = parts.side;
    this.port = parts.port;
    this.deathCause = parts.deathCause;
    const sendRing = parts.side;
    const recvRing = parts.side === 0 ? 1 : 0;
    const word = (ring: 0 | 1, field: number) => (RING_CONTROL_OFFSETS[ring] + field) >> 2;
    this.peerParkedIndex = word(sendRing, CONTROL.consumerParked);
    this.spaceIndex = word(sendRing, CONTROL.producerWaiting);
    this.parkedIndex = word(recvRing, CONTROL.consumerParked);
    this.peerSpaceIndex = word(recvRing, CONTROL.producerWaiting);
    this.port.on("close", this.onPortClose);
    // A listener starts the port (and keeps this thread alive while the channel is open); no
    // message is sent on it after the handshake.
    this.port.on("message", ignore);
  }

  protected ringData(): void {
    Atomics.notify(this.i32, this.peerParkedIndex, 1);
  }

  protected ringSpace(): void {
    Atomics.notify(this.i32, this.peerSpaceIndex, 1);
  }

  /** Parked: sleeps until the producer notifies the parked word (or it already changed). */
  protected sleep(): void {
    this.sleeping = true;
    const res = Atomics.waitAsync(this.i32, this.parkedIndex, 1);
    if (res.async) void res.value.then(this.onDataBell);
    else this.onDataBell();
  }

  private readonly onDataBell = (): void => {
    if (this.sleeping && this.state !== "closed") this.wakeUp();
  };

  /** Send ring full with frames queued: wait until the consumer notifies the waiting word. */
  protected spaceBlocked(): void {
    if (this.spaceWaitArmed) return;
    this.spaceWaitArmed = true;
    const res = Atomics.waitAsync(this.i32, this.spaceIndex, 1);
    if (res.async) void res.value.then(this.onSpaceBell);
    else RESOLVED.then(this.onSpaceBell);
  }

  private readonly onSpaceBell = (): void => {
    this.spaceWaitArmed = false;
    this.flushPending();
  };

  protected endCleanly(): void {
    writeEnd(this.buffer, this.side);
  }

  protected peerEndError(): NearwireError | undefined {
    return readEnd(this.buffer, this.side === 0 ? 1 : 0, this.peer, this.deathCause?.());
  }

  private readonly onPortClose = (): void => {
    if (this.state === "closed") return;
    this.peerEnded = true;
    if (this.handler !== undefined) this.onPeerEnd();
  };

  /** Closing at once: records why (when `tellPeer`), releases the waits, closes the port. */
  protected release(error: NearwireError | undefined, tellPeer: boolean): void {
    if (tellPeer && error !== undefined) writeEnd(this.buffer, this.side, error);
    // Release this side's pending Atomics.waitAsync calls (their callbacks see "closed").
    Atomics.notify(this.i32, this.parkedIndex);
    Atomics.notify(this.i32, this.spaceIndex);
    this.port.off("message", ignore);
    this.port.off("close", this.onPortClose);
    this.port.close();
  }
}

function ignore(): void {}
