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
  #keptBytes = 0;
  readonly #own = new WeakSet<ArrayBufferLike>();

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
    return capacity === length ? buffer : buffer.subarray(0, length);
  }

  /** A kept buffer that holds `length` bytes, as a view of `length` bytes, or undefined. */
  take(length: number): Uint8Array | undefined {
    const kept = this.#kept;
    for (let i = 0; i < kept.length; i++) {
      const buffer = kept[i] as ArrayBufferLike;
      if (buffer.byteLength >= length) {
        kept.splice(i, 1);
        this.#keptBytes -= buffer.byteLength;
        return new Uint8Array(buffer, 0, length);
      }
    }
    return undefined;
  }

  /** Keeps the buffer under `view` for a later {@link take}, if it is this pool's and fits. */
  give(view: Uint8Array): void {
    const buffer = view.buffer;
    if (
      !this.#own.has(buffer) ||
      this.#kept.length >= this.#options.maxCount ||
      this.#keptBytes + buffer.byteLength > this.#options.maxBytes ||
      this.#kept.includes(buffer)
    )
      return;
    this.#kept.push(buffer);
    this.#keptBytes += buffer.byteLength;
  }
}
