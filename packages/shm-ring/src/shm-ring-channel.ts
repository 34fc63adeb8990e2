import type { Socket } from "node:net";
import { performance } from "node:perf_hooks";
import type { Channel, ChannelHandler, ErrorReason, Peer } from "@nearwire/core";
import { Code, isCode, NearwireError } from "@nearwire/core";
import { RingReader, RingWriter } from "@nearwire/ring";
import type { Segment } from "./segment.js";

/*
 * Control bytes on the control socket after the handshake (PROTOCOL.md section 6):
 *
 *   0x44 'D'  doorbell: your receive ring has a record (sent only if you set "parked")
 *   0x53 'S'  doorbell: your send ring has space (sent only if you set "waiting")
 *   0x43 'C'  clean close: every frame is in the ring; drain it, then close
 *   0x47 'G'  u16 big-endian length | UTF-8 JSON {"code":N,"message":"...","reason":"..."}:
 *             closing with an error
 *
 * The socket's end (EOF or reset) without 'C' or 'G' means the peer died: UNAVAILABLE.
 */
const BELL_DATA = 0x44;
const BELL_SPACE = 0x53;
const CLOSE = 0x43;
const GOAWAY = 0x47;
const BELL_DATA_BUF = Buffer.of(BELL_DATA);
const BELL_SPACE_BUF = Buffer.of(BELL_SPACE);
const CLOSE_BUF = Buffer.of(CLOSE);

/** How a receiving side waits for frames. */
export type WaitMode = "spin" | "park" | "adaptive";

/** Records read per ring pass before the loop checks the clock and the control socket. */
const BATCH = 256;
/** Longest stretch the spin loop holds the event loop before yielding (setImmediate), ms. */
const TURN_MS = 1;
/** `RESOLVED.then(f)` queues `f` as a microtask without queueMicrotask's per-call AsyncResource. */
const RESOLVED = Promise.resolve();
/** Microtask hops the chase takes (letting promise continuations run) before it spins. */
const CHASE_HOPS = 8;
/** How long the chase spins for the peer's answer before going back to the event loop, ms. */
const CHASE_SPIN_MS = 0.05;

/** What a channel is built from, after the handshake. */
export interface ShmRingChannelParts {
  socket: Socket;
  segment: Segment;
  /** Ring this side writes (0 for the client, 1 for the server). */
  sendRing: 0 | 1;
  wait: WaitMode;
  spinUs: number;
  peer: string;
  /** Server side: the peer read on accept (`SO_PEERCRED`), handed to handlers as `ctx.peer`. */
  peerCredentials?: Peer;
  /** Control bytes that arrived with the last handshake frame. */
  leftover: Buffer;
}

/**
 * A {@link Channel} over a pair of shared-memory rings. Payload views handed to `onFrame`
 * point into the ring and are valid only until it returns (`transientPayloads`).
 */
export class ShmRingChannel implements Channel {
  readonly transientPayloads = true;
  readonly maxPayloadBytes: number;
  readonly peer: string;
  readonly peerCredentials: Peer | undefined;
  private readonly socket: Socket;
  private readonly segment: Segment;
  private readonly writer: RingWriter;
  private readonly reader: RingReader;
  private readonly wait: WaitMode;
  private readonly spinMs: number;
  private handler: ChannelHandler | undefined;
  private state = "open" as "open" | "closing" | "closed";
  private paused = false;
  private scheduled = false;
  private sleeping = false;
  private sent = false;
  private chaseHops = 0;
  private chaseUntil = 0;
  private lastActivity = performance.now();
  private pending: ({ type: number; payload: Uint8Array } | undefined)[] = [];
  private pendingHead = 0;
  private drainWaiters: (() => void)[] = [];
  private control: Buffer = Buffer.alloc(0);
  private peerEnd: { error: NearwireError | undefined } | undefined;
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

  constructor(parts: ShmRingChannelParts) {
    this.socket = parts.socket;
    this.segment = parts.segment;
    this.writer = new RingWriter(parts.segment.buffer, parts.segment.ringBytes, parts.sendRing);
    this.reader = new RingReader(
      parts.segment.buffer,
      parts.segment.ringBytes,
      parts.sendRing === 0 ? 1 : 0,
    );
    this.maxPayloadBytes = this.writer.maxPayloadBytes;
    this.wait = parts.wait;
    this.spinMs = parts.wait === "park" ? 0 : parts.spinUs / 1000;
    this.peer = parts.peer;
    this.peerCredentials = parts.peerCredentials;
    this.socket.on("data", this.onControl);
    this.socket.on("close", this.onSocketClose);
    this.socket.on("error", () => {});
    if (parts.leftover.length > 0) this.onControl(parts.leftover);
  }

  get closed(): boolean {
    return this.state !== "open";
  }

  /** Bytes of the shared segment (both rings and the header): fixed for the connection. */
  get segmentBytes(): number {
    return this.segment.buffer.byteLength;
  }

  start(handler: ChannelHandler): void {
    if (this.handler !== undefined)
      throw new NearwireError(Code.FailedPrecondition, "channel already started");
    this.handler = handler;
    if (this.state === "closed") {
      handler.onClose(this.closeError);
      return;
    }
    if (this.peerEnd !== undefined) {
      this.onPeerEnd();
      return;
    }
    this.schedule();
  }

  send(type: number, payload: Uint8Array): boolean {
    if (this.state !== "open") {
      throw new NearwireError(Code.Unavailable, `shm-ring channel to ${this.peer} is closed`, {
        reason: "peer-closed",
      });
    }
    if (payload.byteLength > this.maxPayloadBytes) {
      throw new NearwireError(
        Code.ResourceExhausted,
        `frame ${payload.byteLength} B > maxPayloadBytes ${this.maxPayloadBytes}`,
        { reason: "frame-too-large" },
      );
    }
    if (!(type >= 0x10 && type <= 0xff && Number.isInteger(type))) {
      throw new NearwireError(Code.InvalidArgument, `frame type ${type} is not in 0x10..0xff`);
    }
    if (this.pending.length === this.pendingHead && this.writer.tryWrite(type, payload)) {
      if (this.writer.takeParked()) this.socket.write(BELL_DATA_BUF);
      this.sent = true;
      if (this.sleeping && this.wait !== "park") this.wakeUp();
      return true;
    }
    this.pending.push({ type, payload: payload.slice() });
    if (
      this.pending.length - this.pendingHead === 1 &&
      this.writer.waitForSpace(payload.byteLength)
    )
      this.flush();
    return this.pending.length === this.pendingHead;
  }

  /** Zero-copy send (core's `Channel.sendWith`): `fill` writes the payload into the ring slot. */
  sendWith(
    type: number,
    fill: (dest: Uint8Array, offset: number, limit: number) => number,
  ): boolean {
    if (this.state !== "open" || this.pending.length !== this.pendingHead) return false;
    if (!(type >= 0x10 && type <= 0xff && Number.isInteger(type))) return false;
    if (!this.writer.tryWriteWith(type, this.maxPayloadBytes, fill)) return false;
    if (this.writer.takeParked()) this.socket.write(BELL_DATA_BUF);
    this.sent = true;
    if (this.sleeping && this.wait !== "park") this.wakeUp();
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
      this.socket.end(CLOSE_BUF);
      this.terminate(undefined, false);
    });
    return this.closedPromise;
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
        // Yield at once: the handlers' promise continuations (an RPC reply resolving its
        // caller, who then sends the next request) run only when this callback returns.
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
    this.sleeping = true;
  };

  /**
   * Spin and adaptive modes, after a delivery: runs as a microtask behind the continuations the
   * delivery resolved (which typically send the next request or reply), polls again, and spins
   * briefly for the peer's answer — a ping-pong then never waits for an event-loop turn. Bounded
   * by the turn (TURN_MS): after that it yields through setImmediate so I/O and timers run.
   */
  private readonly chase = (): void => {
    if (this.state === "closed" || this.paused || this.handler === undefined) return;
    let delivered: number;
    try {
      delivered = this.poll();
      // This side sent since the last hop: its own continuations are still producing (a
      // stream, a burst of replies), so go on hopping between them instead of spinning.
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

  /** One pass: deliver up to BATCH records, ring the producer if it waits, flush the queue. */
  private poll(): number {
    const n = this.reader.read(this.sink, BATCH);
    if (n > 0 && this.reader.takeWaiting()) this.socket.write(BELL_SPACE_BUF);
    if (this.pending.length !== this.pendingHead) this.flush();
    return n;
  }

  private flush(): void {
    while (this.pending.length !== this.pendingHead) {
      const f = this.pending[this.pendingHead] as { type: number; payload: Uint8Array };
      if (!this.writer.tryWrite(f.type, f.payload)) {
        if (this.writer.waitForSpace(f.payload.byteLength)) continue;
        return;
      }
      this.pending[this.pendingHead++] = undefined;
      if (this.writer.takeParked()) this.socket.write(BELL_DATA_BUF);
    }
    this.pending = [];
    this.pendingHead = 0;
    this.writer.clearWaiting();
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }

  private readonly onControl = (chunk: Buffer): void => {
    this.control = this.control.length === 0 ? chunk : Buffer.concat([this.control, chunk]);
    let i = 0;
    const c = this.control;
    while (i < c.length && this.peerEnd === undefined) {
      const b = c[i] as number;
      if (b === BELL_DATA) {
        i++;
        if (this.sleeping) this.wakeUp();
      } else if (b === BELL_SPACE) {
        i++;
        if (this.state !== "closed" && this.pending.length !== this.pendingHead) this.flush();
      } else if (b === CLOSE) {
        i++;
        this.peerEnd = { error: undefined };
      } else if (b === GOAWAY) {
        if (c.length < i + 3) break;
        const n = c.readUInt16BE(i + 1);
        if (c.length < i + 3 + n) break;
        this.peerEnd = { error: goAwayError(c.subarray(i + 3, i + 3 + n)) };
        i += 3 + n;
      } else {
        this.peerEnd = {
          error: new NearwireError(
            Code.Internal,
            `unknown shm-ring control byte 0x${b.toString(16)}`,
            {
              reason: "protocol-violation",
            },
          ),
        };
        i = c.length;
      }
    }
    this.control = i === c.length ? Buffer.alloc(0) : c.subarray(i);
    if (this.peerEnd !== undefined && this.handler !== undefined) this.onPeerEnd();
  };

  private readonly onSocketClose = (): void => {
    if (this.state === "closed") return;
    this.peerEnd ??= {
      error: new NearwireError(
        Code.Unavailable,
        `shm-ring peer ${this.peer} closed the control socket`,
        {
          reason: "peer-closed",
        },
      ),
    };
    if (this.handler !== undefined) this.onPeerEnd();
  };

  /** The peer closed (cleanly, with an error, or by dying): deliver what it wrote, then close. */
  private onPeerEnd(): void {
    if (this.state === "closed" || this.peerEnd === undefined) return;
    // All the peer published before it ended fits in one ring: drain at most `capacity` bytes,
    // so a peer that goes on writing after `C` (or a corrupt layout) cannot keep us here.
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
    this.terminate(this.peerEnd.error, false);
  }

  /** Closes at once: tells the peer why (when `tellPeer`), unmaps, calls onClose once. */
  private terminate(error: NearwireError | undefined, tellPeer: boolean): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.closeError = error;
    this.sleeping = false;
    if (tellPeer && error !== undefined && !this.socket.destroyed) {
      const body: { code: number; message: string; reason?: string } = {
        code: error.code,
        message: error.message,
      };
      if (error.reason !== undefined) body.reason = error.reason;
      const json = Buffer.from(JSON.stringify(body));
      const head = Buffer.allocUnsafe(3);
      head[0] = GOAWAY;
      head.writeUInt16BE(Math.min(json.length, 0xffff), 1);
      this.socket.end(Buffer.concat([head, json.subarray(0, 0xffff)]));
    } else {
      this.socket.end();
    }
    setTimeout(() => this.socket.destroy(), 1000).unref();
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
    this.pending = [];
    this.pendingHead = 0;
    setImmediate(() => this.segment.release());
    this.handler?.onClose(error);
  }
}

function goAwayError(json: Buffer): NearwireError {
  try {
    const o = JSON.parse(json.toString("utf8")) as {
      code?: unknown;
      message?: unknown;
      reason?: unknown;
    };
    const code = typeof o.code === "number" && isCode(o.code) ? o.code : Code.Unknown;
    const message =
      typeof o.message === "string" ? o.message : "peer closed the channel with an error";
    const opts = typeof o.reason === "string" ? { reason: o.reason as ErrorReason } : {};
    return new NearwireError(code, message, opts);
  } catch {
    return new NearwireError(Code.Internal, "malformed GOAWAY on the shm-ring control socket", {
      reason: "protocol-violation",
    });
  }
}
