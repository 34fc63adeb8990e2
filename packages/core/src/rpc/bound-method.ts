/**
 * Methods bound to a codec (and handlers), shared by every transport; checked encode and decode.
 */
import { Code } from "../code.js";
import type { Codec, MessageCodec } from "../codec.js";
import { messageOf, NearwireError } from "../nearwire-error.js";
import { type MethodKind, methodPath, type ServiceDefinition } from "../service.js";

/** A method with its codec bound: what the engine needs per call, computed once. */
export interface BoundMethod {
  readonly name: string;
  /** `/package.Service/Method`. */
  readonly path: string;
  readonly pathBytes: Uint8Array;
  readonly kind: MethodKind;
  readonly input: MessageCodec<unknown>;
  readonly output: MessageCodec<unknown>;
  /** The codec's name (`json`, `msgpack`, …): a decode failure names it (codec mismatch). */
  readonly codec: string;
}

const utf8 = new TextEncoder();

/**
 * Binds every method of `service` to `codec` (clients and servers of every transport). Throws
 * INVALID_ARGUMENT when a method path is over 255 UTF-8 bytes (the REQUEST frame's limit,
 * PROTOCOL.md §5), on every transport alike.
 */
export function bindService(service: ServiceDefinition, codec: Codec): BoundMethod[] {
  return Object.entries(service.methods).map(([name, def]) => {
    const path = methodPath(service, name);
    const pathBytes = utf8.encode(path);
    if (pathBytes.byteLength > 255)
      throw new NearwireError(
        Code.InvalidArgument,
        `method path ${path} is ${pathBytes.byteLength} B > 255`,
      );
    return {
      name,
      path,
      pathBytes,
      kind: def.kind,
      input: codec.forType(def.input),
      output: codec.forType(def.output),
      codec: codec.name,
    };
  });
}

/** Encodes with `codec`, mapping failures to INTERNAL and checking the size limit. */
export function encodeChecked(
  codec: MessageCodec<unknown>,
  value: unknown,
  maxBytes: number,
  what: string,
): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = codec.encode(value);
  } catch (cause) {
    if (cause instanceof NearwireError) throw cause;
    throw new NearwireError(Code.Internal, `${what} encode failed: ${messageOf(cause)}`, {
      cause,
      reason: "encode-failed",
    });
  }
  if (bytes.byteLength > maxBytes) {
    throw new NearwireError(
      Code.ResourceExhausted,
      `${what} ${bytes.byteLength} B > maxMessageBytes ${maxBytes}`,
      {
        reason: "message-too-large",
      },
    );
  }
  return bytes;
}

/**
 * Decodes with `codec` the message `frame[offset … end)`. A frame that is only valid during the
 * frame callback (`transient`) is copied first, and only when the codec's decoded values would
 * point into it; the copy is taken of the whole frame when the message runs to its end. A codec
 * with `decodeRange` reads the message in place (in the frame or its copy) with no view made
 * for it; others get one view of it. `owned` (a lent message in a buffer of its own, not
 * transient): a codec with `decodeOwnedRange` decodes with that, and may overwrite the range.
 */
export function decodeChecked(
  codec: MessageCodec<unknown>,
  frame: Uint8Array,
  offset: number,
  end: number,
  transient: boolean,
  maxBytes: number,
  what: string,
  owned = false,
): unknown {
  const n = end - offset;
  if (n > maxBytes) {
    throw new NearwireError(
      Code.ResourceExhausted,
      `${what} ${n} B > maxMessageBytes ${maxBytes}`,
      {
        reason: "message-too-large",
      },
    );
  }
  try {
    if (transient && codec.decodesInPlace) {
      copyFrame(frame, offset, end, frame.byteLength);
      if (codec.decodeRange !== undefined)
        return codec.decodeRange(copied, copiedStart, copiedStart + n);
      // A copy of its own is the message exactly; a slab copy gets one view, made from the
      // slab's ArrayBuffer (no `buffer` getter per message).
      return codec.decode(copied === slab ? new Uint8Array(slabBuffer, copiedStart, n) : copied);
    }
    if (owned && codec.decodeOwnedRange !== undefined)
      return codec.decodeOwnedRange(frame, offset, end);
    if (codec.decodeRange !== undefined) return codec.decodeRange(frame, offset, end);
    return codec.decode(
      offset === 0 && end === frame.byteLength ? frame : frame.subarray(offset, end),
    );
  } catch (cause) {
    if (cause instanceof NearwireError) throw cause;
    throw new NearwireError(Code.InvalidArgument, `${what} decode failed: ${messageOf(cause)}`, {
      cause,
      reason: "decode-failed",
    });
  }
}

/**
 * Up to this many bytes a copy is `slice()`: V8 keeps a typed array this small on its heap
 * (`typed_array_max_size_in_heap`), one allocation, faster than a slab view and its `set`;
 * above it `slice()` allocates off-heap, which costs far more, so larger copies come from the
 * slab.
 */
const ON_HEAP_COPY_MAX_BYTES = 64;
/** Copies up to this many bytes into the shared slab; larger messages get their own buffer. */
const SLAB_COPY_MAX_BYTES = 4096;
const SLAB_BYTES = 256 * 1024;
let slabBuffer = new ArrayBuffer(SLAB_BYTES);
let slab = new Uint8Array(slabBuffer);
let slabUsed = 0;

/**
 * Where {@link copyFrame} put the message: `copied[copiedStart …]`, its length unchanged; a copy
 * of its own (not the slab) starts at 0 and is the message exactly.
 */
let copied: Uint8Array = slab;
let copiedStart = 0;

/**
 * Copies `frame[offset … end)` (`total` is `frame.byteLength`, read once by the caller), a
 * transient view (a ring slot), to where it may be kept, and points
 * `copied` / `copiedStart` at it (no object per copy beyond the copy itself). Small messages
 * are carved from a slab that is never reused (it is freed when the last view of it dies), so a
 * message costs no ArrayBuffer of its own (which Node 20 allocates off-heap above 64 bytes); the
 * slab takes the whole frame, as a `set` of the frame needs no view of its message part.
 */
function copyFrame(frame: Uint8Array, offset: number, end: number, total: number): void {
  const n = end - offset;
  if (n <= ON_HEAP_COPY_MAX_BYTES || n > SLAB_COPY_MAX_BYTES || end !== total) {
    copied = frame.slice(offset, end);
    copiedStart = 0;
    return;
  }
  if (slabUsed + total > SLAB_BYTES) {
    slabBuffer = new ArrayBuffer(SLAB_BYTES);
    slab = new Uint8Array(slabBuffer);
    slabUsed = 0;
  }
  slab.set(frame, slabUsed);
  copied = slab;
  copiedStart = slabUsed + offset;
  slabUsed = (slabUsed + total + 7) & ~7;
}
