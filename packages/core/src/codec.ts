/** Codecs: message types, MessageCodec and Codec, and createCodec. */
import { Code } from "./code.js";
import { NearwireError } from "./nearwire-error.js";

/**
 * A named message type of a service definition. The phantom `T` carries the TypeScript type;
 * `name` is what a codec looks up (a protobuf full name such as `nearwire.bench.Tick`).
 */
export interface MessageType<T> {
  readonly name: string;
  /** Phantom field: never set at run time. */
  readonly __type?: T;
}

/** Declares a message type by name; `T` is the TypeScript shape of its values. */
export function messageType<T>(name: string): MessageType<T> {
  return { name };
}

/**
 * Encodes and decodes values of one message type.
 *
 * A decoded value may keep pointing into the input bytes (FlatBuffers always does; msgpack and
 * protobufjs do for `bytes` fields). Such codecs set `decodesInPlace`, and a transport whose
 * receive buffers are only valid during the callback (the shared-memory ring) copies the bytes
 * before decoding, and only then.
 */
export interface MessageCodec<T> {
  /** Encodes `value` into a new byte array. Throws {@link NearwireError} INTERNAL on failure. */
  encode(value: T): Uint8Array;
  /**
   * Decodes `bytes`. Throws {@link NearwireError} with code INVALID_ARGUMENT and reason
   * `decode-failed` when the bytes are not a valid encoding of this type.
   */
  decode(bytes: Uint8Array): T;
  /** True when a decoded value may reference `bytes` (zero-copy decode). */
  readonly decodesInPlace: boolean;
  /**
   * Optional: decodes the message in `bytes[start … end)`, with the result and errors of
   * `decode(bytes.subarray(start, end))` but no view of that range made first. The engine then
   * decodes a received message straight from its frame (or from the frame's copy), one
   * allocation less per message.
   */
  decodeRange?(bytes: Uint8Array, start: number, end: number): T;
  /**
   * Optional: decodes the message in `bytes[start … end)` (the result and errors of
   * `decodeRange`) from bytes the caller gives up: the codec may overwrite that range, and the
   * result may point into it, as with `decodesInPlace`. The engine calls it only for a message
   * lent to a handler or caller (`lendMessages`) in a buffer that stays the message's until
   * they are done with it, and reads the range no more. The JSON codec decodes each byte
   * array's base64 into the bytes where its text lay: no array of its own per message.
   */
  decodeOwnedRange?(bytes: Uint8Array, start: number, end: number): T;
  /**
   * Optional: encodes straight into `dest` at `offset` (a socket batch or a ring slot) and
   * returns the number of bytes written, or -1 when `dest` has too little room.
   */
  encodeInto?(value: T, dest: Uint8Array, offset: number): number;
  /**
   * Optional, beside `encodeInto`: encodes into `dest[start … end)` and returns the number of
   * bytes written from `start`, or -1 when the range has too little room; it writes nothing
   * outside the range, whatever it returns. The engine then fills a slot in the middle of a
   * larger buffer (a ring) without making a view of the slot per message.
   */
  encodeIntoRange?(value: T, dest: Uint8Array, start: number, end: number): number;
}

/**
 * A serialization family (json, msgpack, protobuf, flatbuffers, raw) that makes a
 * {@link MessageCodec} per message type. It is bound when a service is served or a client
 * is made, so the same handlers run with any codec.
 */
export interface Codec {
  /** Short name used in reports and bench case ids: `json`, `msgpack`, `protobuf`, ... */
  readonly name: string;
  /** The codec for one message type; throws NOT_FOUND if this codec does not know the type. */
  forType<T>(type: MessageType<T>): MessageCodec<T>;
  /**
   * Optional: the schema as encoded `google.protobuf.FileDescriptorProto`s (protobuf codecs
   * built from a reflection root have it). gRPC server reflection lists and describes the
   * services bound with such a codec; codecs without it are served but not described.
   */
  fileDescriptorProtos?(): readonly Uint8Array[];
}

/**
 * Builds a {@link Codec} from hand-written per-type codecs, keyed by message type name. This is
 * how the raw (DataView) layouts and the FlatBuffers tables are bound to message types.
 */
export function createCodec(name: string, codecs: Record<string, MessageCodec<unknown>>): Codec {
  return {
    name,
    forType<T>(type: MessageType<T>): MessageCodec<T> {
      const codec = Object.hasOwn(codecs, type.name) ? codecs[type.name] : undefined;
      if (codec === undefined) {
        throw new NearwireError(
          Code.NotFound,
          `codec "${name}" has no message type "${type.name}"`,
        );
      }
      return codec as MessageCodec<T>;
    },
  };
}
