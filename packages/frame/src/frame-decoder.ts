/** FrameDecoder: frame v1 from a byte stream split or joined anywhere, limits checked first. */
import { Code, NearwireError } from "@nearwire/core";
import { BufferPool } from "@nearwire/core/transport-kit";
import { crc32c, crc32cByte } from "./crc32c.js";
import {
  DEFAULT_MAX_FRAME_BYTES,
  FRAME_HEADER_BYTES,
  FRAME_OVERHEAD_BYTES,
  FRAME_TRAILER_BYTES,
} from "./frame-constants.js";

/** Options of {@link FrameDecoder}. */
export interface FrameDecoderOptions {
  /**
   * Largest payload accepted, in bytes (default {@link DEFAULT_MAX_FRAME_BYTES}, 4 MiB). A
   * longer length field fails the stream as soon as its 4 bytes are in.
   */
  maxPayloadBytes?: number;
  /**
   * Called once per frame, in order, synchronously from `push` (or `resume`). A frame that lay
   * entirely inside one pushed chunk is a zero-copy view of that chunk; a frame that spanned
   * chunks (or was read in place, {@link FrameDecoder.payloadTarget}) is a new buffer of exactly
   * its payload size (grown as its bytes arrive, never allocated at the declared length up
   * front). `transient` is true for a view of a chunk pushed as transient: valid only until
   * this callback returns. If it throws, the decoder is dead and the exception propagates out
   * of `push`.
   */
  onFrame(type: number, payload: Uint8Array, transient: boolean): void;
}

enum State {
  /** Collecting the 5 header bytes into `scratch` (a header split across chunks). */
  Header = 0,
  /** Copying payload bytes into `partial`. */
  Payload = 1,
  /** Collecting the 4 trailer bytes into `scratch`. */
  Trailer = 2,
}

/**
 * Streaming decoder of frame v1 (PROTOCOL.md §1): push byte chunks as they come, split or
 * coalesced at any byte boundary; complete frames come out through `onFrame`.
 *
 * The first violation throws a {@link NearwireError} and kills the decoder (every later call
 * throws the same error): a length above `maxPayloadBytes` → RESOURCE_EXHAUSTED, reason
 * `frame-too-large` (raised after the 4 length bytes, before any payload is buffered); a CRC
 * mismatch → DATA_LOSS, reason `crc-mismatch`.
 *
 * Chunks pushed as persistent (the default) must not be modified afterwards (frames are views
 * of them); chunks read from a socket into fresh buffers never are. A reader that reuses one
 * read buffer pushes it as transient: frames cut from it are delivered with `transient` true,
 * and what is held past the push (a pause) is copied. Such a reader can also read large
 * payloads straight into their frame's buffer: see {@link FrameDecoder.payloadTarget}.
 */
export class FrameDecoder {
  #max: number;
  readonly #onFrame: (type: number, payload: Uint8Array, transient: boolean) => void;
  #state: State = State.Header;
  /** Header or trailer bytes collected so far (at most 5). */
  readonly #scratch = new Uint8Array(FRAME_HEADER_BYTES);
  #scratchLength = 0;
  #type = 0;
  #payloadLength = 0;
  #partial: Uint8Array | undefined;
  #partialLength = 0;
  /** Frames that began to be buffered across chunks (a partial header or payload). */
  #partialStarts = 0;
  #error: NearwireError | undefined;
  #paused = false;
  /** Chunks (or their unread tails) held while paused. */
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  /** The chunk being decoded was pushed as transient (its views die with the push). */
  #transient = false;
  /** The last frame delivered had a payload of at least DIRECT_READ_MIN_BYTES. */
  #lastLarge = false;
  /** Frame buffers given back ({@link reclaim}) for later large frames. */
  readonly #spare = new BufferPool({
    maxCount: SPARE_MAX,
    maxBytes: SPARE_MAX_BYTES,
    allocate: (n) => Buffer.allocUnsafeSlow(n),
    burst: SPARE_BURST,
  });

  constructor(options: FrameDecoderOptions) {
    this.#max = checkMax(options.maxPayloadBytes ?? DEFAULT_MAX_FRAME_BYTES);
    this.#onFrame = options.onFrame;
  }

  /** Changes the largest accepted payload (bytes); applies to every length read from now on. */
  setMaxPayloadBytes(maxPayloadBytes: number): void {
    this.#max = checkMax(maxPayloadBytes);
  }

  /** The current largest accepted payload, in bytes. */
  get maxPayloadBytes(): number {
    return this.#max;
  }

  /** Bytes received but not yet delivered: a partial frame plus chunks held while paused. */
  get bufferedBytes(): number {
    let partial = this.#scratchLength;
    if (this.#state !== State.Header) partial = FRAME_HEADER_BYTES + this.#partialLength;
    if (this.#state === State.Trailer) partial += this.#scratchLength;
    return partial + this.#heldBytes;
  }

  /**
   * True while a frame is partly received (its header or payload spans chunks). With
   * {@link partialStarts} a caller can bound how long one frame may take to arrive.
   */
  get inFrame(): boolean {
    return this.#state !== State.Header || this.#scratchLength > 0;
  }

  /** How many frames so far began to be buffered across chunks; see {@link inFrame}. */
  get partialStarts(): number {
    return this.#partialStarts;
  }

  /** The error that killed the decoder, if any. */
  get error(): NearwireError | undefined {
    return this.#error;
  }

  /**
   * Stops delivering frames, also in the middle of a chunk being pushed (from inside
   * `onFrame`): the rest is held until `resume` (without copying, unless pushed as transient).
   */
  pause(): void {
    this.#paused = true;
  }

  /** Delivers what was held while paused, then continues normally. */
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    while (this.#held.length > 0 && !this.#paused) {
      const chunk = this.#held.shift() as Uint8Array;
      this.#heldBytes -= chunk.length;
      this.push(chunk);
    }
  }

  /** True between `pause` and `resume`. */
  get paused(): boolean {
    return this.#paused;
  }

  /**
   * Feeds received bytes. `transient`: `chunk` is only valid during this call (a reused read
   * buffer); frames that lie in it are delivered as transient views, and bytes held past the
   * call are copied. Throws on the first protocol violation (see the class doc).
   */
  push(chunk: Uint8Array, transient = false): void {
    if (this.#error !== undefined) throw this.#error;
    if (this.#paused) {
      if (chunk.length > 0) {
        this.#held.push(transient ? chunk.slice() : chunk);
        this.#heldBytes += chunk.length;
      }
      return;
    }
    this.#transient = transient;
    try {
      this.#decode(chunk);
    } catch (err) {
      this.#error = NearwireError.from(err, Code.Internal);
      this.#held = [];
      this.#heldBytes = 0;
      this.#partial = undefined;
      throw err;
    }
  }

  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the frame v1 state machine runs in one loop per chunk, so a frame costs no call of its own
  #decode(chunk: Uint8Array): void {
    const n = chunk.length;
    let pos = 0;
    // The chunk's ArrayBuffer and offset, read once per chunk at its first whole frame: a
    // payload view made from them is a plain Uint8Array, where `subarray` of a socket's Buffer
    // builds another Buffer through the slower species constructor, and every reader of the
    // payload then sees one kind of array.
    let buffer: ArrayBufferLike | undefined;
    let base = 0;
    while (pos < n) {
      if (this.#paused) {
        const rest = this.#transient ? chunk.slice(pos) : chunk.subarray(pos);
        this.#held.push(rest);
        this.#heldBytes += rest.length;
        return;
      }
      if (this.#state === State.Header && this.#scratchLength === 0) {
        // Fast path: frames lying whole inside this chunk are delivered as views.
        if (n - pos < 4) {
          this.#collectHeader(chunk, pos, n);
          return;
        }
        const len =
          (((chunk[pos] as number) << 24) |
            ((chunk[pos + 1] as number) << 16) |
            ((chunk[pos + 2] as number) << 8) |
            (chunk[pos + 3] as number)) >>>
          0;
        if (len > this.#max) throw tooLarge(len, this.#max);
        if (n - pos >= len + FRAME_OVERHEAD_BYTES) {
          const type = chunk[pos + 4] as number;
          const start = pos + FRAME_HEADER_BYTES;
          if (buffer === undefined) {
            buffer = chunk.buffer;
            base = chunk.byteOffset;
          }
          const payload = new Uint8Array(buffer, base + start, len);
          const t = start + len;
          const expected =
            (((chunk[t] as number) << 24) |
              ((chunk[t + 1] as number) << 16) |
              ((chunk[t + 2] as number) << 8) |
              (chunk[t + 3] as number)) >>>
            0;
          pos = t + FRAME_TRAILER_BYTES;
          this.#deliver(type, payload, expected, this.#transient);
          continue;
        }
        pos = this.#collectHeader(chunk, pos, n);
        continue;
      }
      if (this.#state === State.Header) {
        pos = this.#collectHeader(chunk, pos, n);
        continue;
      }
      if (this.#state === State.Payload) {
        const take = Math.min(this.#payloadLength - this.#partialLength, n - pos);
        let partial = this.#partial as Uint8Array;
        if (this.#partialLength + take > partial.length)
          partial = this.#grow(this.#partialLength + take);
        partial.set(chunk.subarray(pos, pos + take), this.#partialLength);
        this.#partialLength += take;
        pos += take;
        if (this.#partialLength === this.#payloadLength) {
          this.#state = State.Trailer;
          this.#scratchLength = 0;
        }
        continue;
      }
      // Trailer
      while (pos < n && this.#scratchLength < FRAME_TRAILER_BYTES) {
        this.#scratch[this.#scratchLength++] = chunk[pos++] as number;
      }
      if (this.#scratchLength === FRAME_TRAILER_BYTES) {
        const s = this.#scratch;
        const expected =
          (((s[0] as number) << 24) |
            ((s[1] as number) << 16) |
            ((s[2] as number) << 8) |
            (s[3] as number)) >>>
          0;
        const payload = this.#partial as Uint8Array;
        this.#partial = undefined;
        this.#partialLength = 0;
        this.#scratchLength = 0;
        this.#state = State.Header;
        this.#deliver(this.#type, payload, expected, false);
      }
    }
  }

  /** Copies header bytes into scratch; once the length is in, checks it; returns the new pos. */
  #collectHeader(chunk: Uint8Array, pos: number, n: number): number {
    const s = this.#scratch;
    if (this.#scratchLength === 0) this.#partialStarts++;
    while (pos < n && this.#scratchLength < FRAME_HEADER_BYTES) {
      s[this.#scratchLength++] = chunk[pos++] as number;
      if (this.#scratchLength === 4) {
        const len =
          (((s[0] as number) << 24) |
            ((s[1] as number) << 16) |
            ((s[2] as number) << 8) |
            (s[3] as number)) >>>
          0;
        if (len > this.#max) throw tooLarge(len, this.#max);
      }
    }
    if (this.#scratchLength === FRAME_HEADER_BYTES) {
      this.#payloadLength =
        (((s[0] as number) << 24) |
          ((s[1] as number) << 16) |
          ((s[2] as number) << 8) |
          (s[3] as number)) >>>
        0;
      this.#type = s[4] as number;
      this.#scratchLength = 0;
      this.#partialLength = 0;
      // Allocated as bytes arrive (#grow), not at the declared length: a peer announcing a
      // large frame and sending little of it makes this side hold little. A buffer given back
      // is memory held already.
      this.#partial =
        this.#spare.keptBytes > 0 && this.#payloadLength >= DIRECT_READ_MIN_BYTES
          ? (this.#spare.take(this.#payloadLength) ?? EMPTY)
          : EMPTY;
      this.#state = this.#payloadLength === 0 ? State.Trailer : State.Payload;
    }
    return pos;
  }

  /**
   * Reading in place: where the next read should put its bytes, when a frame's payload is
   * partly in and at least {@link DIRECT_READ_MIN_BYTES} of it are still missing — a view of the
   * unfilled part of the frame's own buffer (grown as {@link push} would grow it), so those
   * bytes cross no intermediate buffer; read at most its length into it and call
   * {@link filled}. Undefined otherwise (and while paused or dead): read into a buffer of your
   * own and {@link push} it. The view is only good until the next `push`, `resume` or
   * `payloadTarget`.
   */
  payloadTarget(): Uint8Array | undefined {
    if (this.#state !== State.Payload || this.#paused || this.#error !== undefined)
      return undefined;
    const left = this.#payloadLength - this.#partialLength;
    if (left < DIRECT_READ_MIN_BYTES) return undefined;
    let partial = this.#partial as Uint8Array;
    // Room as push would make it (4× what is in): a peer that announces a large frame and
    // sends little of it still makes this side hold little.
    if (partial.length - this.#partialLength < DIRECT_READ_MIN_BYTES)
      partial = this.#grow(this.#partialLength + 1);
    if (partial.length - this.#partialLength < DIRECT_READ_MIN_BYTES) return undefined;
    return partial.subarray(this.#partialLength);
  }

  /** `n` bytes were read into the view {@link payloadTarget} returned last. */
  filled(n: number): void {
    if (this.#error !== undefined || this.#state !== State.Payload) return;
    if (
      !Number.isInteger(n) ||
      n < 0 ||
      this.#partialLength + n > (this.#partial as Uint8Array).length
    )
      throw new NearwireError(Code.Internal, `filled(${n}) past the payload target`);
    this.#partialLength += n;
    if (this.#partialLength === this.#payloadLength) {
      this.#state = State.Trailer;
      this.#scratchLength = 0;
    }
  }

  /**
   * True when the next bytes due are the rest of a large frame (≥ {@link DIRECT_READ_MIN_BYTES},
   * when {@link payloadTarget} offers nothing) or the head of the frame after one: the next is
   * likely large too, so a reader reading in place reads little ({@link PEEK_READ_BYTES})
   * first, to reach that frame's payload with {@link payloadTarget} early.
   */
  get smallReadAhead(): boolean {
    if (this.#state === State.Header) return this.#lastLarge;
    return this.#payloadLength >= DIRECT_READ_MIN_BYTES;
  }

  /**
   * Gives back the payload of a frame this decoder delivered (not a view of a pushed chunk)
   * once nothing refers to it any more: a later frame of at most its size is then received into
   * it instead of a new buffer. Keeps at most 32 buffers and 4 MiB + 64 KiB (`SPARE_MAX`,
   * `SPARE_MAX_BYTES`); anything else (a view of a chunk, a buffer already given back) is
   * ignored.
   */
  reclaim(payload: Uint8Array): void {
    this.#spare.give(payload);
  }

  /**
   * Makes room for `need` payload bytes in all: the buffer grows to 4× that (at least 4 KiB, at
   * most the payload's length, all of it when less than 16 KiB would be left), so memory stays
   * within 4× the bytes received plus 16 KiB and a large frame is copied about 1.33 times in
   * all instead of once. Complete, it is exactly the payload's size.
   */
  #grow(need: number): Uint8Array {
    let size = Math.min(this.#payloadLength, Math.max(GROW_MIN_BYTES, need * 4));
    // Within DIRECT_READ_MIN_BYTES of the end: the whole payload, not one more small step.
    if (this.#payloadLength - size < DIRECT_READ_MIN_BYTES) size = this.#payloadLength;
    const old = this.#partial as Uint8Array;
    if (size <= old.length) return old;
    // Complete, the buffer is the frame's: made by the pool, so that it may come back.
    const next =
      size === this.#payloadLength ? this.#spare.make(size) : Buffer.allocUnsafeSlow(size);
    if (this.#partialLength > 0) next.set(old.subarray(0, this.#partialLength));
    this.#partial = next;
    return next;
  }

  #deliver(type: number, payload: Uint8Array, expected: number, transient: boolean): void {
    const actual = crc32c(payload, crc32cByte(type));
    if (actual !== expected) {
      throw new NearwireError(
        Code.DataLoss,
        `frame CRC-32C mismatch: type 0x${type.toString(16)}, ${payload.length} B, got 0x${actual.toString(16)} want 0x${expected.toString(16)}`,
        { reason: "crc-mismatch" },
      );
    }
    this.#lastLarge = payload.length >= DIRECT_READ_MIN_BYTES;
    this.#onFrame(type, payload, transient);
  }
}

const EMPTY = new Uint8Array(0);

/** Smallest buffer a frame spanning chunks starts with (4 KiB). */
const GROW_MIN_BYTES = 4096;

/** {@link FrameDecoder.payloadTarget} offers the frame's buffer when this much is missing (16 KiB). */
export const DIRECT_READ_MIN_BYTES = 16 * 1024;
/**
 * Frame buffers a decoder keeps for reuse ({@link FrameDecoder.reclaim}): at most 32 … (a
 * sender refilled with credit sends a burst of frames while the handler gives back one at a
 * time)
 */
const SPARE_MAX = 32;
/**
 * … and 4 MiB + 64 KiB: a stream of 1 MiB messages has two or three on the way (credit by bytes,
 * PROTOCOL.md §5.4), each in a buffer rounded up past 1 MiB; with 2 MiB only one was kept and
 * the others became garbage, one per message.
 */
const SPARE_MAX_BYTES = 4 * 1024 * 1024 + 64 * 1024;
/**
 * … except in a burst (`BufferPool`'s `burst`): many streams at once on one connection have
 * 2 MiB each on the way, and ten uploads of 64 KiB chunks got a fresh buffer for most frames
 * (RSS growth 44–51 MiB on the server; 39–40 with room for them all). Up to 32 MiB, back to
 * the limits above after two seconds in which no frame needed a new buffer.
 */
const SPARE_BURST = { maxBytes: 32 * 1024 * 1024, idleMs: 2000 };

/**
 * What a reader reading in place reads after a large frame (16 KiB): the next frame's head, and
 * enough of its payload that the buffer it then grows (4×) holds a 64 KiB payload whole.
 */
export const PEEK_READ_BYTES = 16 * 1024;

function tooLarge(len: number, max: number): NearwireError {
  return new NearwireError(Code.ResourceExhausted, `frame ${len} B > maxFrameBytes ${max}`, {
    reason: "frame-too-large",
  });
}

function checkMax(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 0xffff_ffff) {
    throw new NearwireError(
      Code.InvalidArgument,
      `maxPayloadBytes ${n} is not an integer in 0..4294967295`,
    );
  }
  return n;
}
