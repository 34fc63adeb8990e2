import { performance } from "node:perf_hooks";
import type { MessagePort } from "node:worker_threads";
import type { Channel, ChannelHandler } from "@nearwire/core";
import { Code, checkSend, isSendableType, NearwireError } from "@nearwire/core";
import { CONTROL, RING_CONTROL_OFFSETS, RingReader, RingWriter } from "@nearwire/ring";
import type { WaitMode } from "./worker-options.js";
import { readEnd, writeEnd } from "./worker-segment.js";

/** Records read per ring pass before the loop checks the clock. */
const BATCH = 256;
/** Longest stretch the spin loop holds the event loop before yielding (setImmediate), ms. */
const TURN_MS = 1;
/** `RESOLVED.then(f)` queues `f` as a microtask. */
const RESOLVED = Promise.resolve();
/** Microtask hops the chase takes (letting promise continuations run) before it spins. */
const CHASE_HOPS = 8;
/** How long the chase spins for the peer's answer before going back to the event loop, ms. */
const CHASE_SPIN_MS = 0.05;

/** What a channel is built from, after the handshake. */
export interface WorkerChannelParts {
  /** The segment (PROTOCOL.md §6 layout) both threads share. */
  buffer: SharedArrayBuffer;
  ringBytes: number;
  /** This side: 0 for the connector (writes ring 0), 1 for the listener (writes ring 1). */
  side: 0 | 1;
  /** The connection's own port: its `close` event is the peer's end (or death). */
  port: MessagePort;
  wait: WaitMode;
  spinUs: number;
  peer: string;
}

/**
 * A {@link Channel} between two threads over a pair of rings in a `SharedArrayBuffer`.
 * Payload views handed to `onFrame` point into the ring and are valid only until it returns
 * (`transientPayloads`). Wake-ups are `Atomics.notify` on the ring's parked / waiting words,
 * sent only when the other side set them; sleeping is `Atomics.waitAsync`, so no thread's event
 * loop is ever blocked.
 */
export class WorkerChannel implements Channel {
  readonly transientPayloads = true;
  readonly maxPayloadBytes: number;
  readonly peer: string;
  private readonly buffer: SharedArrayBuffer;
  private readonly i32: Int32Array;
  private readonly side: 0 | 1;
  private readonly port: MessagePort;
  private readonly writer: RingWriter;
  private readonly reader: RingReader;
  /** Word the peer sleeps on (its receive ring's parked flag): notified after a write. */
  private readonly peerParkedIndex: number;
  /** Word this side sleeps on while parked. */
  private readonly parkedIndex: number;
  /** Word this side waits on for space in its send ring. */
  private readonly spaceIndex: number;
  /** Word the peer waits on for space (its send ring's waiting flag): notified after a read. */
  private readonly peerSpaceIndex: number;
  private readonly wait: WaitMode;
  private readonly spinMs: number;
  private handler: ChannelHandler | undefined;
  private state = "open" as "open" | "closing" | "closed";
  private paused = false;
  private scheduled = false;
  private sleeping = false;
  private spaceWaitArmed = false;
  private sent = false;
  private chaseHops = 0;
  private chaseUntil = 0;
  private lastActivity = performance.now();
  private pending: ({ type: number; payload: Uint8Array } | undefined)[] = [];
  private pendingHead = 0;
  private drainWaiters: (() => void)[] = [];
  private peerEnded = false;
  private closedPromise: Promise<void> | undefined;
  private closeError: NearwireError | undefined;
  private readonly sink = (type: number, payload: Uint8Array): void => {
    if (this.state === "closed" || this.handler === undefined) return;
    try {
      this.handler.onFrame(type, payload);
    } catch (cause) {
      this.terminate(
        new NearwireError(
          Code.Internal,
          `onFrame threw: ${(cause as Error)?.message ?? String(cause)}`,
          { cause },
        ),
        true,
      );
    }
  };

  constructor(parts: WorkerChannelParts) {
    this.buffer = parts.buffer;
    this.i32 = new Int32Array(parts.buffer);
    this.side = parts.side;
    this.port = parts.port;
    const sendRing = parts.side;
    const recvRing = parts.side === 0 ? 1 : 0;
    this.writer = new RingWriter(parts.buffer, parts.ringBytes, sendRing);
    this.reader = new RingReader(parts.buffer, parts.ringBytes, recvRing);
    const word = (ring: 0 | 1, field: number) => (RING_CONTROL_OFFSETS[ring] + field) >> 2;
    this.peerParkedIndex = word(sendRing, CONTROL.consumerParked);
    this.spaceIndex = word(sendRing, CONTROL.producerWaiting);
    this.parkedIndex = word(recvRing, CONTROL.consumerParked);
    this.peerSpaceIndex = word(recvRing, CONTROL.producerWaiting);
    this.maxPayloadBytes = this.writer.maxPayloadBytes;
    this.wait = parts.wait;
    this.spinMs = parts.wait === "park" ? 0 : parts.spinUs / 1000;
    this.peer = parts.peer;
    this.port.on("close", this.onPortClose);
    // A listener starts the port (and keeps this thread alive while the channel is open); no
    // message is sent on it after the handshake.
    this.port.on("message", ignore);
  }

  get closed(): boolean {
    return this.state !== "open";
  }

  start(handler: ChannelHandler): void {
    if (this.handler !== undefined)
      throw new NearwireError(Code.FailedPrecondition, "channel already started");
    this.handler = handler;
    if (this.state === "closed") {
      handler.onClose(this.closeError);
      return;
    }
    if (this.peerEnded) {
      this.onPeerEnd();
      return;
    }
    this.schedule();
  }

  send(type: number, payload: Uint8Array): boolean {
    checkSend(this.state !== "open", type, payload.byteLength, this.maxPayloadBytes, this.peer);
    if (this.pending.length === this.pendingHead && this.writer.tryWrite(type, payload)) {
      this.published();
      return true;
    }
    this.pending.push({ type, payload: payload.slice() });
    if (this.pending.length - this.pendingHead === 1) this.flush();
    return this.pending.length === this.pendingHead;
  }

  /** Zero-copy send (core's `Channel.sendWith`): `fill` writes the payload into the ring slot. */
  sendWith(
    type: number,
    fill: (dest: Uint8Array, offset: number, limit: number) => number,
  ): boolean {
    if (this.state !== "open" || this.pending.length !== this.pendingHead) return false;
    if (!isSendableType(type)) return false;
    if (!this.writer.tryWriteWith(type, this.maxPayloadBytes, fill)) return false;
    this.published();
    return true;
  }

  drained(): Promise<void> {
    if (this.pending.length === this.pendingHead || this.state === "closed")
      return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (this.state !== "closed") this.schedule();
  }

  close(error?: NearwireError): Promise<void> {
    if (this.closedPromise) return this.closedPromise;
    if (error !== undefined) {
      this.terminate(error, true);
      this.closedPromise = Promise.resolve();
      return this.closedPromise;
    }
    this.state = "closing";
    this.closedPromise = this.drained().then(() => {
      if (this.state === "closed") return;
      writeEnd(this.buffer, this.side);
      this.terminate(undefined, false);
    });
    return this.closedPromise;
  }

  /** After a record went into the send ring: wake the peer if it sleeps on it. */
  private published(): void {
    if (this.writer.takeParked()) Atomics.notify(this.i32, this.peerParkedIndex, 1);
    this.sent = true;
    if (this.sleeping && this.wait !== "park") this.wakeUp();
  }

  private isClosed(): boolean {
    return this.state === "closed";
  }

  private schedule(): void {
    if (this.scheduled || this.state === "closed") return;
    this.scheduled = true;
    setImmediate(this.pump);
  }

  private wakeUp(): void {
    this.sleeping = false;
    this.reader.unpark();
    this.lastActivity = performance.now();
    this.schedule();
  }

  /** Parked: sleeps until the producer notifies the parked word (or it already changed). */
  private sleep(): void {
    this.sleeping = true;
    const res = Atomics.waitAsync(this.i32, this.parkedIndex, 1);
    if (res.async) void res.value.then(this.onDataBell);
    else this.onDataBell();
  }

  private readonly onDataBell = (): void => {
    if (this.sleeping && this.state !== "closed") this.wakeUp();
  };

  /** Send ring full with frames queued: wait until the consumer notifies the waiting word. */
  private armSpaceWait(): void {
    if (this.spaceWaitArmed) return;
    this.spaceWaitArmed = true;
    const res = Atomics.waitAsync(this.i32, this.spaceIndex, 1);
    if (res.async) void res.value.then(this.onSpaceBell);
    else RESOLVED.then(this.onSpaceBell);
  }

  private readonly onSpaceBell = (): void => {
    this.spaceWaitArmed = false;
    if (this.state !== "closed" && this.pending.length !== this.pendingHead) this.flush();
  };

  /** The receive loop: spins on the ring for up to TURN_MS, then yields, spins again or parks. */
  private readonly pump = (): void => {
    this.scheduled = false;
    if (this.state === "closed" || this.paused || this.handler === undefined) return;
    let t = performance.now();
    const turnEnd = t + TURN_MS;
    for (let i = 1; ; i++) {
      let delivered: number;
      try {
        delivered = this.poll();
      } catch (err) {
        this.terminate(NearwireError.from(err, Code.Internal), true);
        return;
      }
      if (this.isClosed() || this.paused) return;
      if (delivered > 0) {
        // Yield at once: the handlers' promise continuations run only when this returns.
        this.sent = false;
        this.lastActivity = performance.now();
        if (this.spinMs > 0) {
          this.chaseUntil = turnEnd;
          this.chaseHops = 0;
          RESOLVED.then(this.chase);
        } else {
          this.schedule();
        }
        return;
      }
      if ((i & 15) !== 0) continue;
      t = performance.now();
      if (this.sent) {
        this.sent = false;
        this.lastActivity = t;
      }
      if (t >= turnEnd || t - this.lastActivity >= this.spinMs) break;
    }
    if (this.wait === "spin" || t - this.lastActivity < this.spinMs || !this.reader.park()) {
      this.schedule();
      return;
    }
    this.sleep();
  };

  /**
   * Spin and adaptive modes, after a delivery: polls again as a microtask behind the
   * continuations the delivery resolved, and spins briefly for the peer's answer; bounded by the
   * turn (TURN_MS), after which it yields through setImmediate.
   */
  private readonly chase = (): void => {
    if (this.state === "closed" || this.paused || this.handler === undefined) return;
    let delivered: number;
    try {
      delivered = this.poll();
      if (this.sent) {
        this.sent = false;
        this.chaseHops = 0;
      } else if (delivered === 0 && ++this.chaseHops >= CHASE_HOPS) {
        const end = performance.now() + CHASE_SPIN_MS;
        for (let i = 1; delivered === 0; i++) {
          delivered = this.poll();
          if ((i & 15) === 0 && performance.now() >= end) break;
        }
      }
    } catch (err) {
      this.terminate(NearwireError.from(err, Code.Internal), true);
      return;
    }
    if (this.isClosed() || this.paused) return;
    const now = performance.now();
    if (delivered > 0) {
      this.lastActivity = now;
      this.chaseHops = 0;
    }
    if (this.chaseHops < CHASE_HOPS && now < this.chaseUntil) {
      RESOLVED.then(this.chase);
      return;
    }
    this.schedule();
  };

  /** One pass: deliver up to BATCH records, wake the producer if it waits, flush the queue. */
  private poll(): number {
    const n = this.reader.read(this.sink, BATCH);
    if (n > 0 && this.reader.takeWaiting()) Atomics.notify(this.i32, this.peerSpaceIndex, 1);
    if (this.pending.length !== this.pendingHead) this.flush();
    return n;
  }

  private flush(): void {
    while (this.pending.length !== this.pendingHead) {
      const f = this.pending[this.pendingHead] as { type: number; payload: Uint8Array };
      if (!this.writer.tryWrite(f.type, f.payload)) {
        if (this.writer.waitForSpace(f.payload.byteLength)) continue;
        this.armSpaceWait();
        return;
      }
      this.pending[this.pendingHead++] = undefined;
      if (this.writer.takeParked()) Atomics.notify(this.i32, this.peerParkedIndex, 1);
    }
    this.pending = [];
    this.pendingHead = 0;
    this.writer.clearWaiting();
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }

  private readonly onPortClose = (): void => {
    if (this.state === "closed") return;
    this.peerEnded = true;
    if (this.handler !== undefined) this.onPeerEnd();
  };

  /** The peer closed (cleanly, with an error, or by dying): deliver what it wrote, then close. */
  private onPeerEnd(): void {
    if (this.state === "closed") return;
    const error = readEnd(this.buffer, this.side === 0 ? 1 : 0, this.peer);
    // All the peer published before it ended fits in one ring: drain at most `capacity` bytes.
    const end = this.reader.position + this.reader.capacity;
    try {
      while (
        !this.isClosed() &&
        this.reader.position < end &&
        this.reader.read(this.sink, BATCH) > 0
      ) {}
    } catch (err) {
      this.terminate(NearwireError.from(err, Code.Internal), false);
      return;
    }
    this.terminate(error, false);
  }

  /** Closes at once: records why (when `tellPeer`), closes the port, calls onClose once. */
  private terminate(error: NearwireError | undefined, tellPeer: boolean): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.closeError = error;
    if (tellPeer && error !== undefined) writeEnd(this.buffer, this.side, error);
    this.sleeping = false;
    // Release this side's pending Atomics.waitAsync calls (their callbacks see "closed").
    Atomics.notify(this.i32, this.parkedIndex);
    Atomics.notify(this.i32, this.spaceIndex);
    this.port.off("message", ignore);
    this.port.off("close", this.onPortClose);
    this.port.close();
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
    this.pending = [];
    this.pendingHead = 0;
    this.handler?.onClose(error);
  }
}

function ignore(): void {}
