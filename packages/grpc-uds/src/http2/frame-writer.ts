/**
 * FrameWriter: HTTP/2 frames of every stream of a connection, batched into few socket writes.
 *
 * Frames are encoded into one batch buffer, written with one `socket.write` per tick (a
 * `process.nextTick` flush, after the current callback and its microtasks) or early once the
 * batch holds {@link EARLY_FLUSH_BYTES} while the kernel takes writes at once — the same policy
 * as the socket channel of `@nearwire/uds`: many small frames (HEADERS, DATA and trailers of
 * many calls) cost few syscalls, and a lone reply waits for no trip around the event loop.
 * The batch is reused when the kernel took the whole write synchronously, else the next one is
 * a batch the socket has finished writing; a large payload is written as its own buffer behind
 * its header (one `writev` with the batch, or with a copy of it when it holds a few bytes), not
 * copied, and {@link FrameWriter.whenWritten} tells its owner when the socket is done with it.
 */
import type { Duplex } from "node:stream";
import { FRAME_HEADER_BYTES, writeFrameHeader } from "./frame.js";

/** Size of the batch buffer, bytes. */
export const BATCH_BYTES = 64 * 1024;
/** A payload of at least this many bytes is written as its own buffer (no copy into the batch). */
export const LARGE_PAYLOAD_BYTES = 8 * 1024;
/** A batch is written before the tick ends once it holds this many bytes (doubling, see above). */
export const EARLY_FLUSH_BYTES = 2048;
const EARLY_FLUSH_MAX_BYTES = BATCH_BYTES / 2;
const NO_BATCH = Buffer.alloc(0);
/**
 * Ahead of a large payload, a batch of at most this many bytes is written as a copy, not
 * handed to the socket (2 KiB: `Buffer.allocUnsafe` takes it from Node's shared pool). Before,
 * a large payload's 9-byte header took its 64 KiB batch into the socket's queue with it, and a
 * bulk stream made a new batch for nearly every message: a 1 GiB upload's client held 25 MiB
 * of them uncollected at its peak (`process.memoryUsage().arrayBuffers`).
 */
const SMALL_FLUSH_BYTES = 2048;
/**
 * Batches kept once the socket has written them: a connection whose socket is backed up (bulk
 * data) hands each batch to the socket's queue, and took a new one for every flush.
 */
const FREE_BATCHES = 4;

/** A socket as the writer uses it: `net.Socket` or `tls.TLSSocket`. */
export type WritableSocket = Duplex & { readonly writableLength: number };

export class FrameWriter {
  readonly #socket: WritableSocket;
  #batch: Buffer = NO_BATCH;
  #length = 0;
  #scheduled = false;
  #earlyAt = EARLY_FLUSH_BYTES;
  #closed = false;
  #waiters: (() => void)[] = [];
  /** Socket writes made so far. */
  #issued = 0;
  /** What runs once the socket writes made before it completed (oldest first). */
  #afterWrites: { at: number; run: () => void }[] = [];
  /** Batches the socket has written, for the next {@link reserve} (at most {@link FREE_BATCHES}). */
  #free: Buffer[] = [];
  /** Socket writes completed so far: it moves while the peer reads. */
  completedWrites = 0;
  readonly #onWritten = (): void => {
    this.completedWrites++;
    const after = this.#afterWrites;
    while (after.length > 0 && (after[0] as { at: number }).at <= this.completedWrites)
      (after.shift() as { run: () => void }).run();
    const waiters = this.#waiters;
    if (waiters.length === 0) return;
    this.#waiters = [];
    for (const wake of waiters) wake();
  };

  constructor(socket: WritableSocket) {
    this.#socket = socket;
  }

  /** Bytes queued: the batch plus what the socket has not yet handed to the kernel. */
  get queuedBytes(): number {
    return this.#socket.writableLength + this.#length;
  }

  /**
   * Makes room for `n` bytes (at most {@link BATCH_BYTES}) and returns the batch; the caller
   * writes at {@link offset} and then calls {@link commit}.
   */
  reserve(n: number): Buffer {
    if (this.#length + n > this.#batch.length) {
      this.flush();
      if (this.#batch.length === 0) this.#batch = this.#newBatch();
    }
    return this.#batch;
  }

  #newBatch(): Buffer {
    return this.#free.pop() ?? Buffer.allocUnsafeSlow(BATCH_BYTES);
  }

  /**
   * Runs `run` once the socket has written every write made so far: now when it holds none
   * (the kernel took them), else when the last of them completes. A caller whose buffers went
   * out as their own writes ({@link frame} with a large payload) learns when it may reuse them.
   */
  whenWritten(run: () => void): void {
    if (this.#socket.writableLength === 0) run();
    else this.#afterWrites.push({ at: this.#issued, run });
  }

  #write(bytes: Uint8Array): void {
    this.#issued++;
    this.#socket.write(bytes, this.#onWritten);
  }

  /** Where the next reserved bytes go. */
  get offset(): number {
    return this.#length;
  }

  /** The batch's free bytes after {@link offset}. */
  get room(): number {
    return this.#batch.length - this.#length;
  }

  /** Makes sure a batch exists (an idle connection holds none) and returns it. */
  batch(): Buffer {
    if (this.#batch.length === 0) this.#batch = this.#newBatch();
    return this.#batch;
  }

  /** `n` bytes were written at {@link offset}. */
  commit(n: number): void {
    this.#length += n;
    if (this.#length >= this.#earlyAt && this.#socket.writableLength === 0) {
      this.flush();
      if (this.#earlyAt < EARLY_FLUSH_MAX_BYTES) this.#earlyAt *= 2;
    }
    if (!this.#scheduled) {
      this.#scheduled = true;
      process.nextTick(this.#flushNow);
    }
  }

  /** Appends one frame whose payload is `payload[start … end)` (copied, or written as its own buffer when large). */
  frame(
    type: number,
    flags: number,
    streamId: number,
    payload?: Uint8Array,
    start = 0,
    end = payload?.byteLength ?? 0,
  ): void {
    const n = end - start;
    if (payload !== undefined && n >= LARGE_PAYLOAD_BYTES) {
      const batch = this.reserve(FRAME_HEADER_BYTES);
      writeFrameHeader(batch, this.#length, n, type, flags, streamId);
      this.#length += FRAME_HEADER_BYTES;
      // The batch (ending with this frame's header) and the payload in one writev, not two
      // writes: corked, the socket hands both to the kernel at uncork.
      const socket = this.#socket;
      socket.cork();
      this.#flushBeforePayload();
      this.#write(
        start === 0 && end === payload.byteLength ? payload : payload.subarray(start, end),
      );
      socket.uncork();
      return;
    }
    const batch = this.reserve(FRAME_HEADER_BYTES + n);
    const at = this.#length;
    writeFrameHeader(batch, at, n, type, flags, streamId);
    if (payload !== undefined && n > 0)
      batch.set(payload.subarray(start, end), at + FRAME_HEADER_BYTES);
    this.commit(FRAME_HEADER_BYTES + n);
  }

  /**
   * Flushes the batch ahead of a large payload, with the socket corked (it holds what is
   * written). When the batch holds only a few bytes (the payload's frame header, maybe a small
   * frame before it), a copy of them goes out and the batch stays: handing it to the socket
   * for 9 bytes made a bulk stream take a new 64 KiB batch for nearly every message.
   */
  #flushBeforePayload(): void {
    const n = this.#length;
    if (n > SMALL_FLUSH_BYTES || this.#closed) {
      this.flush();
      return;
    }
    this.generation++;
    const head = Buffer.allocUnsafe(n);
    this.#batch.copy(head, 0, 0, n);
    this.#length = 0;
    this.#write(head);
  }

  /** Writes raw bytes (the client preface) through the batch. */
  raw(bytes: Uint8Array): void {
    const batch = this.reserve(bytes.byteLength);
    batch.set(bytes, this.#length);
    this.commit(bytes.byteLength);
  }

  /** Writes the batch to the socket now. */
  /** Moves at every flush: a position in the batch from before it means nothing after it. */
  generation = 0;

  flush(): void {
    this.generation++;
    if (this.#length === 0 || this.#closed) {
      this.#length = 0;
      return;
    }
    const socket = this.#socket;
    const batch = this.#batch;
    this.#write(batch.subarray(0, this.#length));
    this.#length = 0;
    // The socket still holds the batch when the kernel did not take it all (or it is corked):
    // the next one comes from those it has written.
    if (socket.writableLength > 0) {
      this.#batch = NO_BATCH;
      this.whenWritten(() => {
        if (this.#free.length < FREE_BATCHES) this.#free.push(batch);
      });
    }
  }

  /** Calls `done` once the socket's queue is below `bytes` (or the writer closed): at once if it is. */
  whenDrained(bytes: number, done: () => void): void {
    if (this.#closed || this.queuedBytes < bytes) {
      done();
      return;
    }
    this.flush();
    if (this.#socket.writableLength === 0) done();
    else this.#waiters.push(() => this.whenDrained(bytes, done));
  }

  /** Stops writing; wakes every waiter. */
  close(): void {
    this.#closed = true;
    this.#length = 0;
    // The socket may still be sending what it holds: none of it is handed out again.
    this.#afterWrites = [];
    this.#free = [];
    this.#onWritten();
  }

  readonly #flushNow = (): void => {
    this.#scheduled = false;
    this.#earlyAt = EARLY_FLUSH_BYTES;
    this.flush();
  };
}
