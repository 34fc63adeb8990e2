/**
 * The process's pool of file I/O buffers: the write batches of received chunks (the server's
 * upload, the client's download) and the read blocks of a file upload.
 */

/**
 * Size of one I/O buffer, a write batch. Measured here (`FileHandle.write` to ext4, CPU per
 * GiB): 64 KiB writes 0.80 s, 256 KiB 0.32 s, 512 KiB 0.23 s, 1 MiB 0.19 s; 512 KiB costs
 * little more than 1 MiB and holds half the memory (two buffers per transfer, ten transfers at
 * once: 10 MiB).
 */
export const IO_BUFFER_BYTES = 512 * 1024;

/**
 * Files are read in blocks of about this size (whole chunks; one chunk when larger), into the
 * first part of an I/O buffer. A 1 GiB file upload over uds cost the client 2.2–3.1 s of CPU
 * with a read per 64 KiB chunk, 1.6–1.7 s with 256 KiB or 512 KiB blocks; 256 KiB holds half
 * the memory (ten uploads at once: 18–22 MiB of RSS growth on the client against 21–30 MiB).
 */
export const READ_BLOCK_BYTES = 256 * 1024;

/** Buffers kept for reuse while the process is idle (8 MiB). */
const IDLE_POOL_MAX = 16;
/** How long the pool keeps more than {@link IDLE_POOL_MAX} buffers after they were last needed. */
const TRIM_AFTER_MS = 2000;

/*
 * Kept for reuse up to as many as were in use at once lately, so a steady load (ten uploads at
 * a time, upload after upload) takes every buffer from the pool instead of allocating and
 * dropping 1 MiB per upload, which made the garbage collector run full collections for external
 * memory; two seconds after the peak has passed, the pool goes back to IDLE_POOL_MAX.
 */
const pool: Uint8Array[] = [];
let inUse = 0;
/** The most buffers in use at once in the current period, and in the one before. */
let peak = 0;
let lastPeak = 0;
let trimTimer: NodeJS.Timeout | undefined;

/**
 * Where a buffer must start, and a write's position and length be a multiple of, for a file
 * opened with O_DIRECT: 4096 B, the page size, which covers any logical block size up to it.
 */
export const DIRECT_IO_ALIGN = 4096;

/**
 * New buffers are carved from slabs of this size (16 buffers) that start on a page: the
 * memory of a `WebAssembly.Memory`, which V8 maps page-aligned (an ordinary `ArrayBuffer`
 * starts wherever malloc puts it, 16 B from a page). Pages are only resident once written; a
 * slab is freed once none of its buffers is in use or kept by the pool.
 */
const SLAB_BYTES = 16 * IO_BUFFER_BYTES;
/** The one part of the WebAssembly API used here (the package's `lib` has no DOM types). */
declare const WebAssembly: {
  Memory: new (descriptor: { initial: number }) => { readonly buffer: ArrayBuffer };
};
/** The slabs buffers were carved from (those start on a page; see {@link alignedForDirectIo}). */
const slabs = new WeakSet<ArrayBufferLike>();
let slab: ArrayBuffer | undefined;
let slabUsed = SLAB_BYTES;

/** A new I/O buffer, page-aligned when a slab can be had (else an ordinary one). */
function newIoBuffer(): Uint8Array {
  if (slabUsed + IO_BUFFER_BYTES > SLAB_BYTES) {
    try {
      const made = new WebAssembly.Memory({ initial: SLAB_BYTES / 65536 }).buffer;
      slabs.add(made);
      slab = made;
      slabUsed = 0;
    } catch {
      // No address space for one (a ulimit -v): unaligned buffers, written through the page cache.
      return new Uint8Array(IO_BUFFER_BYTES);
    }
  }
  const b = new Uint8Array(slab as ArrayBuffer, slabUsed, IO_BUFFER_BYTES);
  slabUsed += IO_BUFFER_BYTES;
  return b;
}

/** True when `b` starts on a page, so an O_DIRECT write may take it as it is. */
export function alignedForDirectIo(b: Uint8Array): boolean {
  return b.byteOffset % DIRECT_IO_ALIGN === 0 && slabs.has(b.buffer);
}

/**
 * Buffers out at once in the process past which a transfer keeps only one write in flight
 * ({@link ioBuffersCrowded}): 16 (8 MiB), what the pool keeps idle.
 */
export const SHARED_WRITES_BUFFERS = IDLE_POOL_MAX;

/**
 * True when the process has {@link SHARED_WRITES_BUFFERS} or more I/O buffers out: many
 * transfers receive at once, and each one's second write in flight would only add a buffer
 * (ten uploads: 30 instead of 20) while the disk has ten writes queued already.
 */
export function ioBuffersCrowded(): boolean {
  return inUse >= SHARED_WRITES_BUFFERS;
}

/** A buffer of {@link IO_BUFFER_BYTES}, from the pool when it has one; give it back once done. */
export function takeIoBuffer(): Uint8Array {
  inUse++;
  if (inUse > peak) peak = inUse;
  return pool.pop() ?? newIoBuffer();
}

/** Gives back a buffer of {@link takeIoBuffer} (once; nothing may use it afterwards). */
export function giveIoBuffer(b: Uint8Array): void {
  inUse--;
  if (inUse + pool.length < Math.max(IDLE_POOL_MAX, peak, lastPeak)) pool.push(b);
  if (pool.length > IDLE_POOL_MAX && trimTimer === undefined) {
    trimTimer = setTimeout(trim, TRIM_AFTER_MS);
    trimTimer.unref();
  }
}

/** Drops the buffers past what the last two periods needed (at least the idle count). */
function trim(): void {
  trimTimer = undefined;
  const keep = Math.max(IDLE_POOL_MAX, peak, lastPeak) - inUse;
  if (pool.length > keep) pool.length = Math.max(keep, 0);
  lastPeak = peak;
  peak = inUse;
  if (pool.length > IDLE_POOL_MAX) {
    trimTimer = setTimeout(trim, TRIM_AFTER_MS);
    trimTimer.unref();
  }
}
