import { performance } from "node:perf_hooks";
import type { Channel, ChannelHandler } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import { FrameType } from "@nearwire/core/protocol";
import { BufferPool, checkSend, isSendableType } from "@nearwire/core/transport-kit";
import { RingReader, RingWriter } from "./ring.js";
import type { WaitMode } from "./ring-options.js";
import { SendQueue } from "./send-queue.js";

/** Smallest spill buffer `sendWith` takes while frames are queued, bytes. */
const SPILL_MIN_BYTES = 16 * 1024;
/** Spill buffers kept for reuse: enough for a frame per stream of ten streams, and then some. */
const SPILL_KEPT = 32;
const SPILL_KEPT_BYTES = 8 * 1024 * 1024;

/** Records read per ring pass before the loop checks the clock (and the transport's events). */
const BATCH = 256;
/** Longest stretch the spin loop holds the event loop before yielding (setImmediate), ms. */
const TURN_MS = 1;
/** `RESOLVED.then(f)` queues `f` as a microtask without queueMicrotask's per-call AsyncResource. */
const RESOLVED = Promise.resolve();
/** Microtask hops the chase takes (letting promise continuations run) before it spins. */
const CHASE_HOPS = 8;
/** How long the chase spins for the peer's answer before going back to the event loop, ms. */
const CHASE_SPIN_MS = 0.05;
/** Producing hops without a delivery between two reads of the clock (a power of two). */
const CHASE_CLOCK_HOPS = 8;
/** Records this side sends (or, as a consumer, receives) per window over which its ratio is judged. */
const BULK_WINDOW = 64;
/**
 * A side that sent this many records or more per record received over the last window is a
 * bulk producer (an upload, a long stream): its sends then no longer keep its receive loop
 * spinning or wake it once parked, and a delivery does not make it spin either — it waits on
 * its own source or on the peer's credit, and the peer's data bell wakes it. CREDIT frames are
 * not counted as received: a receiver returns them at its own pace (one per 256 KiB with a
 * 512 KiB byte window, four 64 KiB chunks), and spinning 50–100 µs after each of them cost an
 * uploading client about 0.2 s of CPU per GiB. An RPC pipeline receives about one reply per
 * request and stays a chase.
 *
 * The other end of such a flow: a side that received this many records or more per record it
 * sent over its last BULK_WINDOW received (CREDIT counted on neither side: a receiver returns
 * it for what it took) is a bulk consumer (the server of an upload, the client of a download or
 * of a long stream). It does not spin for the next record either: the producer rings it when
 * it parked. Spinning there held the core from this process's own thread pool (an upload
 * server's file writes, pinned to the same core): 0.25 s of the server's CPU per GiB of a
 * shm-ring upload into tmpfs.
 */
const BULK_RATIO = 8;

/** What every ring channel is built from. */
export interface RingChannelParts {
  /** The mapped segment (PROTOCOL.md §6 layout). */
  buffer: ArrayBufferLike;
  ringBytes: number;
  /** Ring this side writes (0 for the client / connector, 1 for the server / listener). */
  sendRing: 0 | 1;
  wait: WaitMode;
  /** Spin window of `adaptive`, µs. */
  spinUs: number;
  peer: string;
  /**
   * Largest frame payload, agreed by both sides at set-up, bytes; at least (and by default) one
   * record's payload, `ringBytes / 2 - 16`. Larger frames go as fragment records.
   */
  maxFrameBytes?: number;
  /** This side announced at set-up that it takes BATCH frames (PROTOCOL.md §5.2). Default false. */
  acceptsBatches?: boolean;
  /** The peer announced that it takes BATCH frames. Default false. */
  peerAcceptsBatches?: boolean;
  /** The peer announced that it returns credit by bytes (PROTOCOL.md §5.4). Default false. */
  peerCreditsBytes?: boolean;
  /** The byte window the peer announced (PROTOCOL.md §5.4), as both sides read it. */
  peerCreditWindowBytes?: number | undefined;
  /** The byte window this side announced, as both sides read it. */
  creditWindowBytes?: number | undefined;
}

/**
 * The part of a ring {@link Channel} that does not depend on how the two sides ring each other's
 * bell or learn of each other's end: send (through a `SendQueue` when the ring is full),
 * the wait policy of the receive loop (spin, park, adaptive; the chase after a delivery), drain,
 * pause, close. Used by shm-ring
 * (doorbells on a control socket, between processes) and worker (`Atomics.notify`, between
 * threads). A subclass supplies the hooks; the hot path calls them only when the other side set
 * its parked / waiting flag.
 */
export abstract class RingChannel implements Channel {
  readonly transientPayloads = true;
  readonly maxPayloadBytes: number;
  /** The receive ring's capacity: what the peer can send before the ring pushes back. */
  readonly inboundCapacityBytes: number;
  readonly peer: string;
  readonly acceptsBatches: boolean;
  readonly peerAcceptsBatches: boolean;
  readonly peerCreditsBytes: boolean;
  readonly peerCreditWindowBytes: number | undefined;
  readonly creditWindowBytes: number | undefined;
  protected readonly writer: RingWriter;
  protected readonly reader: RingReader;
  protected readonly wait: WaitMode;
  private readonly spinMs: number;
  /** Largest payload of one record: a frame over it is sent in fragments of `fragmentBytes`. */
  private readonly recordBytes: number;
  private readonly fragmentBytes: number;
  /** Where {@link sendWith} encodes a frame that has no room in the ring now (made on first use). */
  private scratch: Uint8Array | undefined;
  /**
   * Buffers `sendWith` encodes into while earlier frames wait in the queue, each given back
   * once its frame is in the ring (see {@link spillWith}); and the size to take for the next.
   */
  private readonly spill = new BufferPool({ maxCount: SPILL_KEPT, maxBytes: SPILL_KEPT_BYTES });
  private spillBytes = SPILL_MIN_BYTES;
  protected handler: ChannelHandler | undefined;
  protected state = "open" as "open" | "closing" | "closed";
  private paused = false;
  private scheduled = false;
  protected sleeping = false;
  private sent = false;
  /** Records written straight into the ring and records received in this window (no CREDIT). */
  private windowSends = 0;
  private windowDeliveries = 0;
  /** Records received and records sent (neither a CREDIT) in the consumer's window. */
  private inWindowReceived = 0;
  private inWindowSent = 0;
  /** Judged at the end of each consumer window: see BULK_RATIO. */
  private bulkIn = false;
  /** Records other than CREDIT delivered by the current ring pass. */
  private answers = 0;
  /** Judged at the end of each window: see BULK_RATIO. */
  private bulk = false;
  private chaseHops = 0;
  private chaseUntil = 0;
  /** Producing chase hops without a delivery, counted for the clock reads (CHASE_CLOCK_HOPS). */
  private chaseTicks = 0;
  private lastActivity = performance.now();
  private readonly queue: SendQueue;
  /** Set by the subclass when it learnt that the peer ended (its error: {@link peerEndError}). */
  protected peerEnded = false;
  private closedPromise: Promise<void> | undefined;
  private closeError: NearwireError | undefined;
  private readonly sink = (type: number, payload: Uint8Array): void => {
    if (this.state === "closed" || this.handler === undefined) return;
    if (type !== FrameType.Credit) this.answers++;
    try {
      this.handler.onFrame(type, payload);
    } catch (cause) {
      this.terminate(
        true,
        new NearwireError(
          Code.Internal,
          `onFrame threw: ${(cause as Error)?.message ?? String(cause)}`,
          { cause },
        ),
      );
    }
  };

  constructor(parts: RingChannelParts) {
    this.writer = new RingWriter(parts.buffer, parts.ringBytes, parts.sendRing);
    this.reader = new RingReader(parts.buffer, parts.ringBytes, parts.sendRing === 0 ? 1 : 0);
    this.recordBytes = this.writer.maxPayloadBytes;
    // A quarter ring: the consumer copies one piece out while the producer writes the next.
    this.fragmentBytes = Math.min(this.recordBytes, parts.ringBytes / 4);
    this.maxPayloadBytes = Math.max(this.recordBytes, parts.maxFrameBytes ?? 0);
    this.reader.maxFrameBytes = this.maxPayloadBytes;
    this.inboundCapacityBytes = this.reader.capacity;
    this.wait = parts.wait;
    this.spinMs = parts.wait === "park" ? 0 : parts.spinUs / 1000;
    this.peer = parts.peer;
    this.acceptsBatches = parts.acceptsBatches === true;
    this.peerAcceptsBatches = parts.peerAcceptsBatches === true;
    this.peerCreditsBytes = parts.peerCreditsBytes === true;
    this.peerCreditWindowBytes = parts.peerCreditWindowBytes;
    this.creditWindowBytes = parts.creditWindowBytes;
    this.queue = new SendQueue(
      this.writer,
      () => this.ringData(),
      () => this.spaceBlocked(),
      (buffer) => this.spill.give(buffer),
    );
  }

  /** The peer's receive ring had its parked flag set (now cleared): wake it. */
  protected abstract ringData(): void;
  /** The peer's send ring had its waiting flag set (now cleared): tell it there is space. */
  protected abstract ringSpace(): void;
  /** The receive loop parked (the parked flag is set): sleep until {@link wakeUp}. */
  protected abstract sleep(): void;
  /** The send queue stopped on a full ring with the waiting flag set: wait for the space bell. */
  protected abstract spaceBlocked(): void;
  /** A clean close after the queue drained: tell the peer every frame is in the ring. */
  protected abstract endCleanly(): void;
  /** Transport-specific part of closing at once: tell the peer `error` (when `tellPeer`). */
  protected abstract release(error: NearwireError | undefined, tellPeer: boolean): void;
  /** The error the peer ended with (undefined: it closed cleanly), read once it ended. */
  protected abstract peerEndError(): NearwireError | undefined;

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
    return this.write(type, payload, true);
  }

  /**
   * Writes a frame into the ring, as fragments when larger than one record; what does not fit
   * now is queued, as a copy when `copy` (else `payload` must stay unchanged until the queue is
   * empty). True when nothing waits in the queue.
   */
  private write(type: number, payload: Uint8Array, copy: boolean): boolean {
    if (payload.byteLength > this.recordBytes)
      return this.queue.addFragments(type, payload, this.fragmentBytes, copy);
    if (this.queue.empty && this.writer.tryWrite(type, payload)) {
      this.wrote(type);
      return true;
    }
    return this.queue.add(type, payload, copy);
  }

  /**
   * Zero-copy send (core's `Channel.sendWith`): `fill` writes the payload into the ring slot.
   * When the ring has no contiguous room for it now (the write position near the ring's end,
   * the consumer behind, or a frame larger than one record), `fill` writes into the channel's
   * scratch buffer instead, which is then written as {@link send} would (wrapping, in
   * fragments) and queued without a copy for what does not fit: the scratch is free again
   * whenever the queue is empty, which is the only time this runs. A large message thus costs
   * one encode and one copy into the ring, not a fresh buffer for its bytes, another for its
   * frame and a third in the queue.
   */
  sendWith(
    type: number,
    fill: (dest: Uint8Array, offset: number, limit: number) => number,
  ): boolean {
    if (this.state !== "open" || !isSendableType(type)) return false;
    if (!this.queue.empty) return this.spillWith(type, fill);
    if (this.writer.tryWriteWith(type, this.recordBytes, fill)) {
      this.wrote(type);
      return true;
    }
    this.scratch ??= new Uint8Array(this.maxPayloadBytes);
    const n = fill(this.scratch, 0, this.maxPayloadBytes);
    if (!(n >= 0 && n <= this.maxPayloadBytes)) return false;
    this.write(type, this.scratch.subarray(0, n), false);
    return true;
  }
  /**
   * `sendWith` while earlier frames wait in the queue: `fill` writes into a pooled buffer the
   * size of the last frame spilled, which is queued without a copy and given back once its
   * frame is in the ring. Otherwise the engine encodes such a message into a fresh buffer,
   * frames it in another and the queue copies it: with ten streams on one connection and a
   * full ring, that was most of a sender's RSS growth. False (the caller then uses `send`)
   * for a frame over one record, or over the spill size, which doubles for the next one.
   */
  private spillWith(
    type: number,
    fill: (dest: Uint8Array, offset: number, limit: number) => number,
  ): boolean {
    const want = this.spillBytes;
    const buf = this.spill.take(want) ?? this.spill.make(want);
    const n = fill(buf, 0, want);
    if (!(n >= 0 && n <= want)) {
      this.spill.give(buf);
      this.spillBytes = Math.min(this.recordBytes, want * 2);
      return false;
    }
    this.spillBytes = Math.max(SPILL_MIN_BYTES, n);
    this.queue.add(type, buf.subarray(0, n), false, buf);
    return true;
  }

  /** True while frames wait in the send queue (what `send` reports by returning false). */
  get backpressured(): boolean {
    return !this.queue.empty;
  }

  /**
   * A record went straight into the ring: ring the peer when it parked, and count it as this
   * side's activity (a parked adaptive or spin loop starts again: an answer may follow).
   */
  private wrote(type: number): void {
    if (this.writer.takeParked()) this.ringData();
    if (++this.windowSends === BULK_WINDOW) {
      this.bulk = this.windowDeliveries * BULK_RATIO <= BULK_WINDOW;
      this.windowSends = 0;
      this.windowDeliveries = 0;
    }
    if (type !== FrameType.Credit) {
      // Sends as often as it receives: no longer a bulk consumer (judged at once).
      this.inWindowSent++;
      if (this.bulkIn && this.inWindowSent * BULK_RATIO > BULK_WINDOW) this.bulkIn = false;
    } else if (this.bulkIn) {
      // A bulk consumer's CREDIT lets the producer go on: the data bell wakes this side.
      return;
    }
    // A bulk producer waits on its own source or on the peer's credit, not on an answer that
    // follows each send: its receive loop parks, and the peer's data bell wakes it.
    if (this.bulk) return;
    this.sent = true;
    if (this.sleeping && this.wait !== "park") this.wakeUp();
  }

  drained(): Promise<void> {
    if (this.state === "closed") return Promise.resolve();
    return this.queue.drained();
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
      this.terminate(true, error);
      this.closedPromise = Promise.resolve();
      return this.closedPromise;
    }
    this.state = "closing";
    this.closedPromise = this.drained().then(() => {
      if (this.state === "closed") return;
      this.endCleanly();
      this.terminate(false);
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

  /** Leaves the parked state and runs the receive loop again (the data bell rang). */
  protected wakeUp(): void {
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
    // A bulk producer does not spin for an answer, nor a bulk consumer for the next record
    // (see BULK_RATIO): each parks at once.
    const spinMs = this.bulk || this.bulkIn ? 0 : this.spinMs;
    for (let i = 1; ; i++) {
      let delivered: number;
      try {
        delivered = this.poll();
      } catch (err) {
        this.terminate(true, NearwireError.from(err, Code.Internal));
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
      if (t >= turnEnd || t - this.lastActivity >= spinMs) break;
    }
    if (this.wait === "spin" || t - this.lastActivity < spinMs || !this.reader.park()) {
      this.schedule();
      return;
    }
    this.sleep();
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
    let producing = false;
    try {
      delivered = this.poll();
      // This side sent since the last hop: its own continuations are still producing (a
      // stream, a burst of replies), so go on hopping between them instead of spinning.
      if (this.sent) {
        this.sent = false;
        this.chaseHops = 0;
        producing = true;
      } else if (delivered === 0 && ++this.chaseHops >= CHASE_HOPS && !this.bulk && !this.bulkIn) {
        // No answer in sight for CHASE_HOPS hops: spin briefly for it (a bulk producer expects
        // none, a bulk consumer waits for its producer's pace: each goes back to the pump,
        // which parks it).
        const end = performance.now() + CHASE_SPIN_MS;
        for (let i = 1; delivered === 0; i++) {
          delivered = this.poll();
          if ((i & 15) === 0 && performance.now() >= end) break;
        }
      }
    } catch (err) {
      this.terminate(true, NearwireError.from(err, Code.Internal));
      return;
    }
    if (this.isClosed() || this.paused) return;
    // While this side produces (a stream's producer hops here once per message) and nothing
    // arrived, the clock is read on every CHASE_CLOCK_HOPS-th hop only: a read per hop was
    // 3–4 % of a streaming server's time; the turn's end is then passed by at most that many
    // hops. Otherwise it is read every hop.
    if (!producing || delivered > 0 || (++this.chaseTicks & (CHASE_CLOCK_HOPS - 1)) === 0) {
      const now = performance.now();
      if (delivered > 0) {
        this.lastActivity = now;
        this.chaseHops = 0;
      }
      if (now >= this.chaseUntil) {
        this.schedule();
        return;
      }
    }
    if (this.chaseHops < CHASE_HOPS) {
      RESOLVED.then(this.chase);
      return;
    }
    this.schedule();
  };

  /** One pass: deliver up to BATCH records, ring the producer if it waits, flush the queue. */
  private poll(): number {
    const n = this.reader.read(this.sink, BATCH);
    if (n > 0) {
      // Answers again as often as it sends: no longer a bulk producer (judged before the
      // window ends, so that a side turning from a stream to calls spins again at once).
      this.windowDeliveries += this.answers;
      this.inWindowReceived += this.answers;
      this.answers = 0;
      if (this.bulk && this.windowDeliveries * BULK_RATIO > BULK_WINDOW) this.bulk = false;
      if (this.inWindowReceived >= BULK_WINDOW) {
        this.bulkIn = this.inWindowSent * BULK_RATIO <= this.inWindowReceived;
        this.inWindowReceived = 0;
        this.inWindowSent = 0;
      }
      if (this.reader.takeWaiting()) this.ringSpace();
    }
    if (!this.queue.empty) this.queue.flush();
    return n;
  }

  /** The space bell rang: write what is queued. */
  protected flushPending(): void {
    if (this.state !== "closed" && !this.queue.empty) this.queue.flush();
  }

  /** The peer closed (cleanly, with an error, or by dying): deliver what it wrote, then close. */
  protected onPeerEnd(): void {
    if (this.state === "closed" || !this.peerEnded) return;
    const error = this.peerEndError();
    // All the peer published before it ended fits in one ring: drain at most `capacity` bytes,
    // so a peer that goes on writing after its end (or a corrupt layout) cannot keep us here.
    const end = this.reader.position + this.reader.capacity;
    try {
      while (
        !this.isClosed() &&
        this.reader.position < end &&
        this.reader.read(this.sink, BATCH) > 0
      ) {}
    } catch (err) {
      this.terminate(false, NearwireError.from(err, Code.Internal));
      return;
    }
    this.terminate(false, error);
  }

  /** Closes at once: tells the peer why (when `tellPeer`), calls onClose once (with `error`). */
  protected terminate(tellPeer: boolean, error?: NearwireError): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.closeError = error;
    this.sleeping = false;
    this.release(error, tellPeer);
    this.queue.clear();
    this.handler?.onClose(error);
  }
}
