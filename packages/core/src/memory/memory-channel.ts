/**
 * Two {@link Channel}s joined back to back inside one process: the channel under
 * {@link createMemoryTransport}. Frames are copied into a slab (a 256 KiB buffer carved into
 * views, a new slab when full, so no allocation per frame) and delivered in batches on a later
 * turn of the event loop (`setImmediate`), as a socket would: a receiver never runs inside the
 * sender's call stack, and timers and I/O keep running under load.
 */
import type { Channel, ChannelHandler } from "../channel.js";
import { checkSend, isSendableType } from "../check-send.js";
import { Code } from "../code.js";
import { NearwireError } from "../nearwire-error.js";

/** Slab size, bytes: frames are carved from it; a larger frame gets its own buffer. */
const SLAB_BYTES = 256 * 1024;

/** Options of {@link memoryChannelPair}. */
export interface MemoryChannelOptions {
  /** Largest payload each end accepts, bytes. */
  maxPayloadBytes: number;
  /** `send` returns false when this many bytes wait for delivery. */
  highWaterMarkBytes: number;
  /** Both ends take BATCH frames (as if both had announced them). Default false. */
  batches?: boolean;
}

/** Makes a connected pair: `[client end, server end]`. */
export function memoryChannelPair(options: MemoryChannelOptions): [Channel, Channel] {
  const a = new MemoryChannel("memory:server", options);
  const b = new MemoryChannel("memory:client", options);
  a.other = b;
  b.other = a;
  return [a, b];
}

class MemoryChannel implements Channel {
  readonly transientPayloads = false;
  readonly maxPayloadBytes: number;
  readonly acceptsBatches: boolean;
  readonly peerAcceptsBatches: boolean;
  /** Both ends are this engine, which returns credit by bytes too. */
  readonly peerCreditsBytes = true;
  closed = false;
  other!: MemoryChannel;
  private handler: ChannelHandler | undefined;
  private readonly highWaterMarkBytes: number;
  /** Frames sent and not yet delivered: types and payload views, in order. */
  private types: number[] = [];
  private payloads: Uint8Array[] = [];
  /**
   * The arrays of the last delivered batch, emptied: the next batch's queue. Swapping two
   * pairs instead of allocating a pair per delivery saves the arrays' growth per frame.
   */
  private spareTypes: number[] = [];
  private sparePayloads: Uint8Array[] = [];
  private readonly deliver = (): void => {
    this.scheduled = false;
    this.flush();
  };
  private queuedBytes = 0;
  private scheduled = false;
  private paused = false;
  /** The slab's ArrayBuffer: a view made with it costs half a `subarray` (no `buffer` getter). */
  private slab = new ArrayBuffer(SLAB_BYTES);
  private slabBytes = new Uint8Array(this.slab);
  private slabUsed = 0;
  private drainWaiters: (() => void)[] = [];
  private closeNotified = false;
  private closeError: NearwireError | undefined;

  constructor(
    readonly peer: string,
    options: MemoryChannelOptions,
  ) {
    this.maxPayloadBytes = options.maxPayloadBytes;
    this.highWaterMarkBytes = options.highWaterMarkBytes;
    this.acceptsBatches = options.batches === true;
    this.peerAcceptsBatches = this.acceptsBatches;
  }

  start(handler: ChannelHandler): void {
    if (this.handler !== undefined)
      throw new NearwireError(Code.FailedPrecondition, "channel already started");
    this.handler = handler;
    this.other.schedule();
    if (this.closed) setImmediate(() => this.notifyClose());
  }

  send(type: number, payload: Uint8Array): boolean {
    const n = payload.byteLength;
    const dest = this.reserve(type, n);
    dest.set(payload);
    return this.commit(type, dest);
  }

  sendWith(
    type: number,
    fill: (dest: Uint8Array, offset: number, limit: number) => number,
  ): boolean {
    if (this.closed || !isSendableType(type)) return false;
    let room = SLAB_BYTES - this.slabUsed;
    if (room < 4096) {
      this.newSlab();
      room = SLAB_BYTES;
    }
    const n = fill(this.slabBytes, this.slabUsed, Math.min(room, this.maxPayloadBytes));
    if (n < 0) return false;
    const view = new Uint8Array(this.slab, this.slabUsed, n);
    this.slabUsed = (this.slabUsed + n + 7) & ~7;
    this.commit(type, view);
    return true;
  }

  get backpressured(): boolean {
    return this.queuedBytes >= this.highWaterMarkBytes;
  }

  drained(): Promise<void> {
    if (this.closed || this.queuedBytes < this.highWaterMarkBytes) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.other.schedule();
  }

  close(error?: NearwireError): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.closeError = error;
    if (error !== undefined) {
      this.types = [];
      this.payloads = [];
      this.queuedBytes = 0;
    }
    // The peer learns of the close after every frame sent before it.
    setImmediate(() => {
      this.flush();
      this.notifyClose();
      this.wakeDrainWaiters();
      this.other.peerClosed(error);
    });
    return Promise.resolve();
  }

  private reserve(type: number, n: number): Uint8Array {
    checkSend(this.closed, type, n, this.maxPayloadBytes, this.peer);
    if (n > SLAB_BYTES / 4) return new Uint8Array(n);
    if (this.slabUsed + n > SLAB_BYTES) this.newSlab();
    const view = new Uint8Array(this.slab, this.slabUsed, n);
    this.slabUsed = (this.slabUsed + n + 7) & ~7;
    return view;
  }

  private newSlab(): void {
    this.slab = new ArrayBuffer(SLAB_BYTES);
    this.slabBytes = new Uint8Array(this.slab);
    this.slabUsed = 0;
  }

  private commit(type: number, payload: Uint8Array): boolean {
    this.types.push(type);
    this.payloads.push(payload);
    this.queuedBytes += payload.byteLength;
    this.schedule();
    return this.queuedBytes < this.highWaterMarkBytes;
  }

  /** Schedules delivery of this end's queued frames to the other end. */
  schedule(): void {
    if (this.scheduled || this.types.length === 0) return;
    this.scheduled = true;
    setImmediate(this.deliver);
  }

  private flush(): void {
    const other = this.other;
    const handler = other.handler;
    if (handler === undefined || other.closed) return;
    const types = this.types;
    const payloads = this.payloads;
    this.types = this.spareTypes;
    this.payloads = this.sparePayloads;
    let i = 0;
    try {
      while (i < types.length && !other.paused && !other.closed) {
        const payload = payloads[i] as Uint8Array;
        const type = types[i] as number;
        i++;
        this.queuedBytes -= payload.byteLength;
        handler.onFrame(type, payload);
      }
    } finally {
      if (i < types.length && !other.closed) {
        // Paused mid-batch: the rest stays queued, ahead of frames sent meanwhile.
        this.types = types.slice(i).concat(this.types);
        this.payloads = payloads.slice(i).concat(this.payloads);
      }
      // The delivered batch's arrays become the spare pair (no view of it is kept).
      types.length = 0;
      payloads.length = 0;
      this.spareTypes = types;
      this.sparePayloads = payloads;
      if (this.queuedBytes < this.highWaterMarkBytes) this.wakeDrainWaiters();
    }
  }

  private wakeDrainWaiters(): void {
    const waiters = this.drainWaiters;
    if (waiters.length === 0) return;
    this.drainWaiters = [];
    for (const wake of waiters) wake();
  }

  private peerClosed(error: NearwireError | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.closeError =
      error === undefined
        ? new NearwireError(Code.Unavailable, `peer ${this.peer} closed the connection`, {
            reason: "peer-closed",
          })
        : new NearwireError(error.code, `peer ${this.peer} closed: ${error.message}`, {
            reason: error.reason ?? "peer-closed",
          });
    this.types = [];
    this.payloads = [];
    this.queuedBytes = 0;
    this.wakeDrainWaiters();
    this.notifyClose();
  }

  private notifyClose(): void {
    if (this.closeNotified || this.handler === undefined) return;
    this.closeNotified = true;
    this.handler.onClose(this.closeError);
  }
}
