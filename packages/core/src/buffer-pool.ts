/** BufferPool: large receive buffers kept for reuse once their contents are no longer needed. */

/** A pool's buffers are made in multiples of this many bytes (4 KiB). */
export const POOL_ROUND_BYTES = 4096;

/** Options of a {@link BufferPool}. */
export interface BufferPoolOptions {
  /** Buffers kept at most. */
  maxCount: number;
  /** Bytes kept at most, all buffers together. */
  maxBytes: number;
  /** Makes a new buffer of `length` bytes (default `new Uint8Array(length)`). */
  allocate?: (length: number) => Uint8Array;
  /**
   * Keep more in a burst: past `maxCount` and `maxBytes`, buffers given back are still kept,
   * up to `maxBytes` here, and dropped down to the usual limits once a period of `idleMs`
   * passed without the pool making a buffer (without it running short). For a receiver with
   * many streams on one connection: ten streams of 64 KiB messages keep 20 MiB on the way,
   * and a pool of 32 made a fresh buffer for most of them and dropped as many.
   */
  burst?: { maxBytes: number; idleMs: number };
}

/**
 * Buffers for large received messages, kept for reuse: {@link make} allocates one (and knows
 * it as its own), {@link give} takes back one of its own once nothing refers to it, {@link take}
 * hands out a kept buffer that holds a given length (a view of exactly that length), or
 * undefined. Buffers it did not make, and a buffer given twice, are ignored, so a caller that
 * gives back everything it is done with cannot poison the pool with a view of other memory.
 */
export class BufferPool {
  readonly #options: BufferPoolOptions;
  readonly #kept: ArrayBufferLike[] = [];
  /** The same buffers as `#kept`, for the given-twice check without a scan. */
  readonly #keptSet = new Set<ArrayBufferLike>();
  #keptBytes = 0;
  readonly #own = new WeakSet<ArrayBufferLike>();
  /** The burst trim's timer, while more than the usual limits is kept. */
  #trimTimer: ReturnType<typeof setTimeout> | undefined;
  /** Buffers made since the burst trim last looked. */
  #madeLately = 0;

  constructor(options: BufferPoolOptions) {
    this.#options = options;
  }

  /** Bytes kept now. */
  get keptBytes(): number {
    return this.#keptBytes;
  }

  /** True when `view` is a view of a buffer this pool made. */
  owns(view: Uint8Array): boolean {
    return this.#own.has(view.buffer);
  }

  /**
   * A new buffer of `length` bytes, known as this pool's. From 16 KiB on it is a view of
   * `length` bytes of memory rounded up to a multiple of 4 KiB (`POOL_ROUND_BYTES`; at most a
   * quarter more), so that it can take a later message a few bytes longer: a protobuf chunk's
   * varint offset grows as a transfer goes on, and with exact sizes no kept buffer would ever fit
   * the next message. Smaller buffers are exact.
   */
  make(length: number): Uint8Array {
    const capacity =
      length < 4 * POOL_ROUND_BYTES
        ? length
        : Math.ceil(length / POOL_ROUND_BYTES) * POOL_ROUND_BYTES;
    const buffer = this.#options.allocate?.(capacity) ?? new Uint8Array(capacity);
    this.#own.add(buffer.buffer);
    this.#madeLately++;
    return capacity === length ? buffer : buffer.subarray(0, length);
  }

  /** A kept buffer that holds `length` bytes, as a view of `length` bytes, or undefined. */
  take(length: number): Uint8Array | undefined {
    const kept = this.#kept;
    for (let i = 0; i < kept.length; i++) {
      const buffer = kept[i] as ArrayBufferLike;
      if (buffer.byteLength >= length) {
        kept.splice(i, 1);
        this.#keptSet.delete(buffer);
        this.#keptBytes -= buffer.byteLength;
        return new Uint8Array(buffer, 0, length);
      }
    }
    return undefined;
  }

  /** Keeps the buffer under `view` for a later {@link take}, if it is this pool's and fits. */
  give(view: Uint8Array): void {
    const buffer = view.buffer;
    if (!this.#own.has(buffer) || this.#keptSet.has(buffer)) return;
    const { maxCount, maxBytes, burst } = this.#options;
    const bytes = this.#keptBytes + buffer.byteLength;
    if (this.#kept.length >= maxCount || bytes > maxBytes) {
      if (burst === undefined || bytes > burst.maxBytes) return;
      if (this.#trimTimer === undefined) {
        this.#madeLately = 0;
        this.#trimTimer = setTimeout(() => this.#trimBurst(), burst.idleMs);
        this.#trimTimer.unref?.();
      }
    }
    this.#kept.push(buffer);
    this.#keptSet.add(buffer);
    this.#keptBytes = bytes;
  }

  /** A burst period ended: what is past the usual limits goes, unless the pool ran short. */
  #trimBurst(): void {
    this.#trimTimer = undefined;
    const { maxCount, maxBytes, burst } = this.#options;
    const over = () => this.#kept.length > maxCount || this.#keptBytes > maxBytes;
    if (!over()) return;
    if (this.#madeLately > 0) {
      this.#madeLately = 0;
      this.#trimTimer = setTimeout(() => this.#trimBurst(), burst?.idleMs ?? 0);
      this.#trimTimer.unref?.();
      return;
    }
    while (over()) {
      const buffer = this.#kept.pop() as ArrayBufferLike;
      this.#keptSet.delete(buffer);
      this.#keptBytes -= buffer.byteLength;
    }
  }
}
