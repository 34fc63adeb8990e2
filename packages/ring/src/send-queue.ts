import type { RingWriter } from "./ring.js";
import { TYPE_FRAGMENT } from "./ring-layout.js";

/** A frame (or one fragment of one) waiting for room in the send ring. */
interface QueuedFrame {
  type: number;
  payload: Uint8Array;
  /** The pooled buffer `payload` lies in, given back once the frame is in the ring. */
  owner?: Uint8Array | undefined;
}

/**
 * The frames a ring channel could not write at once, in order: copies of them, queued while
 * the send ring is full (or while earlier frames wait), and a frame larger than one record as
 * its fragment records. {@link flush} writes them when the consumer made room; `drained()`
 * waits for that. How the two sides ring each other's bell is the channel's: the queue calls
 * `ringData` after a write that found the consumer parked, `spaceBlocked` when it stops on a
 * full ring with the waiting flag set.
 */
export class SendQueue {
  private frames: (QueuedFrame | undefined)[] = [];
  private head = 0;
  private drainWaiters: (() => void)[] = [];

  constructor(
    private readonly writer: RingWriter,
    private readonly ringData: () => void,
    private readonly spaceBlocked: () => void,
    /** Takes back the pooled buffer of a frame queued with an owner, once it is written. */
    private readonly giveBack: (buffer: Uint8Array) => void = () => {},
  ) {}

  /** Nothing is queued: a new frame may go straight into the ring. */
  get empty(): boolean {
    return this.frames.length === this.head;
  }

  /**
   * Queues a frame and writes what fits; true when the queue emptied. Queues a copy unless
   * `copy` is false: then `payload` must stay unchanged until the queue is empty, or, with an
   * `owner` (the pooled buffer it lies in), until the frame is written, when `owner` is given
   * back.
   */
  add(type: number, payload: Uint8Array, copy = true, owner?: Uint8Array): boolean {
    this.frames.push({ type, payload: copy ? payload.slice() : payload, owner });
    if (this.frames.length - this.head === 1) this.flush();
    return this.frames.length === this.head;
  }

  /**
   * Queues a frame larger than one record as fragment records of `fragmentBytes` (type 0x01)
   * and a last record of `type`, written in order (nothing else goes between them); true when
   * the queue emptied. Fragments that fit the ring now are written from `payload` itself; a
   * copy is queued of the rest, or, with `copy` false, views of `payload` (which must then stay
   * unchanged until the queue is empty).
   */
  addFragments(type: number, payload: Uint8Array, fragmentBytes: number, copy = true): boolean {
    const n = payload.byteLength;
    let off = 0;
    if (this.frames.length === this.head) {
      while (
        off + fragmentBytes < n &&
        this.writer.tryWrite(TYPE_FRAGMENT, payload.subarray(off, off + fragmentBytes))
      ) {
        off += fragmentBytes;
        if (this.writer.takeParked()) this.ringData();
      }
      if (off + fragmentBytes >= n && this.writer.tryWrite(type, payload.subarray(off))) {
        if (this.writer.takeParked()) this.ringData();
        return true;
      }
    }
    const wasEmpty = this.frames.length === this.head;
    const rest = copy ? payload.slice(off) : payload.subarray(off);
    const restBytes = rest.byteLength;
    for (let at = 0; at < restBytes; at += fragmentBytes) {
      const last = off + at + fragmentBytes >= n;
      this.frames.push({
        type: last ? type : TYPE_FRAGMENT,
        payload: rest.subarray(at, last ? restBytes : at + fragmentBytes),
      });
    }
    if (wasEmpty) this.flush();
    return this.frames.length === this.head;
  }

  /** Writes queued frames until the ring is full; once empty, wakes the `drained()` callers. */
  flush(): void {
    while (this.frames.length !== this.head) {
      const f = this.frames[this.head] as QueuedFrame;
      if (!this.writer.tryWrite(f.type, f.payload)) {
        if (this.writer.waitForSpace(f.payload.byteLength)) continue;
        this.spaceBlocked();
        return;
      }
      this.frames[this.head++] = undefined;
      if (f.owner !== undefined) this.giveBack(f.owner);
      if (this.writer.takeParked()) this.ringData();
    }
    this.frames = [];
    this.head = 0;
    this.writer.clearWaiting();
    this.wakeDrainWaiters();
  }

  /** Resolves once every queued frame is in the ring (or the queue is cleared). */
  drained(): Promise<void> {
    if (this.frames.length === this.head) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Drops every queued frame (the channel closed) and wakes the `drained()` callers. */
  clear(): void {
    this.wakeDrainWaiters();
    this.frames = [];
    this.head = 0;
  }

  private wakeDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }
}
