/**
 * The send side of a `SocketChannel`: frames below {@link LARGE_PAYLOAD_BYTES} are encoded
 * into a batch buffer that is written with one `socket.write` per tick (a `process.nextTick`
 * flush, which runs after the current callback and every microtask it queued) or when the batch
 * is full: many small frames cost few syscalls, and a lone reply waits for no trip around the
 * event loop. The batch buffer is reused when the kernel took the whole write synchronously, and
 * handed to the socket (a new one allocated) when it did not. A larger payload is written as its
 * own buffer between its header and trailer, without copying: do not modify a payload after
 * `send`.
 *
 * A frame filled in place (`sendWith`) that does not fit an empty batch is filled into a big
 * buffer ({@link BIG_BUFFER_BYTES}) shared out frame after frame and written at once: a
 * 64 KiB or 1 MiB chunk of bulk data is copied once, into memory that is reused (the buffer
 * goes back to a process-wide pool when its last write completed), with no buffer made per
 * frame. Under backpressure the socket gathers such writes into one `writev`.
 */
import type net from "node:net";
import {
  crc32cRange,
  encodeFrameInto,
  FRAME_HEADER_BYTES,
  FRAME_OVERHEAD_BYTES,
  FRAME_TRAILER_BYTES,
  frameChecksum,
  writeFrameHeader,
  writeFrameTrailer,
} from "@nearwire/frame";

/** Payloads of at least this many bytes are written as their own buffer, not copied (16 KiB). */
export const LARGE_PAYLOAD_BYTES = 16 * 1024;

/** Size of the send batch buffer (64 KiB). */
export const BATCH_BYTES = 64 * 1024;

/**
 * Size of a big buffer (1 MiB + 64 KiB: a 1 MiB chunk with its envelope fits). A frame larger
 * than this takes the copying path (`sendWith` returns false).
 */
export const BIG_BUFFER_BYTES = 1024 * 1024 + 64 * 1024;

/** Big buffers kept for reuse by the writers of the process (4.25 MiB at most). */
const BIG_POOL_MAX = 4;

/** A big buffer: frames are filled in one after another until the next one does not fit. */
class BigBuffer {
  readonly bytes = Buffer.allocUnsafeSlow(BIG_BUFFER_BYTES);
  /** Where the next frame starts. */
  used = 0;
  /** Writes handed to a socket and not completed. */
  pending = 0;
  /** No more frames go in: back to the pool once `pending` is 0. */
  retired = false;
  /** Who to wake when a write completes (the writer that filled it). */
  wake: () => void = noop;
  /** The callback of every write of this buffer (one closure per buffer, not per write). */
  readonly onWritten = (): void => {
    this.pending--;
    if (this.retired && this.pending === 0) releaseBig(this);
    this.wake();
  };
}

const bigPool: BigBuffer[] = [];

function takeBig(wake: () => void): BigBuffer {
  const b = bigPool.pop() ?? new BigBuffer();
  b.used = 0;
  b.retired = false;
  b.wake = wake;
  return b;
}

function releaseBig(b: BigBuffer): void {
  b.wake = noop;
  if (bigPool.length < BIG_POOL_MAX) bigPool.push(b);
}

function noop(): void {}

/**
 * A batch is written as soon as it holds this many bytes, without waiting for the end of the
 * tick: while this side is still working through a burst, the peer already gets the first
 * answers, so both processes work at once instead of taking turns with whole bursts. Only
 * while the kernel takes writes at once (nothing queued in the socket): under backpressure
 * batches grow to full size instead. Within one run of sends (until the tick's flush) the
 * threshold doubles after each early write, up to {@link EARLY_FLUSH_MAX_BYTES}: a burst of
 * replies still starts the peer after 2 KiB, while a long stream (a server-streaming handler that
 * never yields to the event loop) soon writes 32 KiB per syscall instead of 2 KiB.
 */
export const EARLY_FLUSH_BYTES = 2048;

/**
 * The early-write threshold stops doubling here, half the batch: a batch is then written before
 * it fills, so a frame never has to find the batch too full for it (a codec's `encodeInto` that
 * runs out of room may have to give up and be retried).
 */
export const EARLY_FLUSH_MAX_BYTES = BATCH_BYTES / 2;

/**
 * Writes frames to a socket in batches (see the file's comment). It checks nothing: the channel
 * checks state, type and size before it calls {@link send} or {@link sendWith}.
 */
export class BatchWriter {
  readonly #socket: net.Socket;
  readonly #highWaterMarkBytes: number;
  /** Allocated at the first send (an idle connection holds none), again after a queued write. */
  #batch: Buffer = NO_BATCH;
  #batchLength = 0;
  /** Where frames too large for the batch are filled (see the file's comment). */
  #big: BigBuffer | undefined;
  #flushScheduled = false;
  /** The batch length that triggers an early write now (doubles within a run of sends). */
  #earlyFlushAt = EARLY_FLUSH_BYTES;
  #writeWaiters: (() => void)[] = [];

  /**
   * Wakes the callers of {@link written}. Every `socket.write` here carries it; the channel
   * also calls it when the socket closes.
   */
  readonly wakeWaiters = (): void => {
    const waiters = this.#writeWaiters;
    if (waiters.length === 0) return;
    this.#writeWaiters = [];
    for (const wake of waiters) wake();
  };

  /** `send` returns false once the socket and the batch hold `highWaterMarkBytes` or more. */
  constructor(socket: net.Socket, highWaterMarkBytes: number) {
    this.#socket = socket;
    this.#highWaterMarkBytes = highWaterMarkBytes;
  }

  /** Sends one frame; false when the queued bytes reached the high-water mark. */
  send(type: number, payload: Uint8Array): boolean {
    const n = payload.length;
    if (n >= LARGE_PAYLOAD_BYTES) {
      this.flush();
      const edges = Buffer.allocUnsafe(FRAME_OVERHEAD_BYTES);
      writeFrameHeader(edges, 0, type, n);
      writeFrameTrailer(edges, FRAME_HEADER_BYTES, frameChecksum(type, payload));
      const socket = this.#socket;
      socket.cork();
      socket.write(edges.subarray(0, FRAME_HEADER_BYTES));
      socket.write(payload);
      socket.write(edges.subarray(FRAME_HEADER_BYTES), this.wakeWaiters);
      socket.uncork();
    } else {
      if (this.#batchLength + n + FRAME_OVERHEAD_BYTES > this.#batch.length) this.#makeRoom();
      this.#batchLength += encodeFrameInto(this.#batch, this.#batchLength, type, payload);
      this.#afterAppend();
    }
    return this.#queuedBytes() < this.#highWaterMarkBytes;
  }

  /**
   * Zero-copy send (`SocketChannel.sendWith`): `fill` writes a payload of at most
   * `maxPayloadBytes` straight into the batch behind the frame header. Flushes earlier frames
   * and tries once more when it does not fit; false when it still does not (or `fill` gave up).
   */
  sendWith(
    type: number,
    fill: (dest: Uint8Array, offset: number, limit: number) => number,
    maxPayloadBytes: number,
  ): boolean {
    for (;;) {
      const batch = this.#batch;
      const start = this.#batchLength;
      const end = fillFrame(batch, start, type, fill, maxPayloadBytes);
      if (end >= 0) {
        this.#batchLength = end;
        this.#afterAppend();
        return true;
      }
      if (start === 0) {
        if (batch.length !== 0) return this.#sendBig(type, fill, maxPayloadBytes);
        this.#batch = Buffer.allocUnsafeSlow(BATCH_BYTES);
        continue;
      }
      this.flush();
    }
  }

  /**
   * `sendWith` for a frame that does not fit an empty batch: filled into the big buffer (a
   * fresh one when the current one has too little room left) and written at once.
   */
  #sendBig(
    type: number,
    fill: (dest: Uint8Array, offset: number, limit: number) => number,
    maxPayloadBytes: number,
  ): boolean {
    for (let fresh = false; ; fresh = true) {
      let big = this.#big;
      if (big === undefined || fresh) {
        if (big !== undefined) this.#retireBig(big);
        big = takeBig(this.wakeWaiters);
        this.#big = big;
      }
      const bytes = big.bytes;
      const start = big.used;
      const end = fillFrame(bytes, start, type, fill, maxPayloadBytes);
      if (end >= 0) {
        big.used = end;
        big.pending++;
        this.#socket.write(bytes.subarray(start, big.used), big.onWritten);
        return true;
      }
      if (start === 0) return false; // too large even for a big buffer: the caller copies
    }
  }

  /** No more frames go into `big`; it returns to the pool when its writes completed. */
  #retireBig(big: BigBuffer): void {
    big.retired = true;
    if (big.pending === 0) releaseBig(big);
  }

  /** The socket and the batch hold at least the high-water mark. */
  get backpressured(): boolean {
    return this.#queuedBytes() >= this.#highWaterMarkBytes;
  }

  /** Writes the batch to the socket now (nothing when it is empty). */
  flush(): void {
    if (this.#batchLength === 0) return;
    const socket = this.#socket;
    socket.write(this.#batch.subarray(0, this.#batchLength), this.wakeWaiters);
    this.#batchLength = 0;
    // The kernel took it all synchronously: the buffer is free again. Otherwise the socket
    // still references it, so the next send takes a new one (#makeRoom).
    if (socket.writableLength > 0) this.#batch = NO_BATCH;
  }

  /**
   * Drops the frames still in the batch (the channel failed or closed) and gives the big buffer
   * back (to the pool, once its writes completed).
   */
  discard(): void {
    this.#batchLength = 0;
    if (this.#big !== undefined) this.#retireBig(this.#big);
    this.#big = undefined;
  }

  /**
   * Resolves at the next completed write or when the socket closes. Unlike the socket's
   * 'drain', this also works below the socket's own 16 KiB high-water mark.
   */
  written(): Promise<void> {
    return new Promise<void>((resolve) => this.#writeWaiters.push(resolve));
  }

  #queuedBytes(): number {
    return this.#socket.writableLength + this.#batchLength;
  }

  /** A frame was appended to the batch: write it early (see {@link EARLY_FLUSH_BYTES}) or at the tick's end. */
  #afterAppend(): void {
    if (this.#batchLength >= this.#earlyFlushAt && this.#socket.writableLength === 0) {
      this.flush();
      if (this.#earlyFlushAt < EARLY_FLUSH_MAX_BYTES) this.#earlyFlushAt *= 2;
    }
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    process.nextTick(this.#flushNow);
  }

  readonly #flushNow = (): void => {
    this.#flushScheduled = false;
    this.#earlyFlushAt = EARLY_FLUSH_BYTES;
    this.flush();
  };

  /** Flushes the batch and makes sure there is one to encode into. */
  #makeRoom(): void {
    this.flush();
    if (this.#batch.length === 0) this.#batch = Buffer.allocUnsafeSlow(BATCH_BYTES);
  }
}

/**
 * Fills a frame at `dest[start …]`: header, the payload `fill` writes (at most
 * `maxPayloadBytes`, within `dest`), trailer. Returns where the frame ends, or -1 when it does
 * not fit (or `fill` gave up).
 */
function fillFrame(
  dest: Buffer,
  start: number,
  type: number,
  fill: (dest: Uint8Array, offset: number, limit: number) => number,
  maxPayloadBytes: number,
): number {
  const room = dest.length - start - FRAME_HEADER_BYTES;
  const limit = Math.min(room, maxPayloadBytes + FRAME_TRAILER_BYTES);
  const n = limit > FRAME_TRAILER_BYTES ? fill(dest, start + FRAME_HEADER_BYTES, limit) : -1;
  if (n < 0 || n + FRAME_TRAILER_BYTES > limit) return -1;
  writeFrameHeader(dest, start, type, n);
  const end = start + FRAME_HEADER_BYTES + n;
  writeFrameTrailer(dest, end, crc32cRange(dest, start + 4, end));
  return end + FRAME_TRAILER_BYTES;
}

/** The batch of a writer that has nothing to send yet. */
const NO_BATCH = Buffer.alloc(0);
