/**
 * Payloads of the connection-control frames (PROTOCOL.md §4).
 *
 * HELLO (type 0x01), 16 bytes, 24 with the features field, 28 with the byte window:
 * ```
 * offset  size  field
 * 0       8     magic, ASCII "NEARWIRE" (4E 45 41 52 57 49 52 45)
 * 8       2     version, u16 BE (= 1)
 * 10      2     flags, u16 BE (0; receivers ignore unknown bits)
 * 12      4     maxFrameBytes, u32 BE: largest payload the sender accepts
 * 16      4     features tag, ASCII "FEAT" (46 45 41 54)   (optional)
 * 20      4     features, u32 BE: bit 0 BATCH, bit 1 CREDIT_BYTES, bit 2 CREDIT_WINDOW
 * 24      4     creditWindowBytes, u32 BE: the sender's byte window (with bit 2)
 * ```
 * GOAWAY (type 0x02): `u8 status code | UTF-8 reason text (rest of the payload)`.
 */
import { Code, NearwireError } from "@nearwire/core";
import { FEATURE_CREDIT_WINDOW } from "@nearwire/core/protocol";

/** The protocol version this implementation speaks (HELLO `version`). */
export const PROTOCOL_VERSION = 1;

/** HELLO magic: the ASCII bytes `NEARWIRE`. */
export const HELLO_MAGIC: Uint8Array = new Uint8Array([
  0x4e, 0x45, 0x41, 0x52, 0x57, 0x49, 0x52, 0x45,
]);

/** Size of a HELLO payload, in bytes. Longer payloads are accepted; bytes past 16 are ignored. */
export const HELLO_PAYLOAD_BYTES = 16;

/**
 * The tag that opens HELLO's optional features field, bytes 16–19: ASCII `FEAT`. Bytes past 16
 * that do not start with it (and a payload shorter than 24 bytes) announce no features.
 */
export const HELLO_FEATURES_TAG: Uint8Array = new Uint8Array([0x46, 0x45, 0x41, 0x54]);

/** Size of a HELLO payload with the features field, bytes. */
export const HELLO_WITH_FEATURES_BYTES = 24;

/** Size of a HELLO payload with the features field and the byte window after it, bytes. */
export const HELLO_WITH_WINDOW_BYTES = 28;

/** HELLO feature bits (PROTOCOL.md §4.1). */
export {
  FEATURE_BATCH,
  FEATURE_CREDIT_BYTES,
  FEATURE_CREDIT_WINDOW,
} from "@nearwire/core/protocol";

/**
 * Smallest `maxFrameBytes` a HELLO may announce (1024 B): every GOAWAY and RPC header frame of
 * a reasonable size must fit. A smaller value is a bad preface.
 */
export const MIN_MAX_FRAME_BYTES = 1024;

/** Longest GOAWAY reason text {@link encodeGoAway} writes, in UTF-8 bytes (longer is cut). */
export const GOAWAY_MAX_MESSAGE_BYTES = 512;

/** The fields of a HELLO payload. */
export interface Hello {
  /** Protocol version (1). */
  version: number;
  /** Largest payload the sender of this HELLO accepts, in bytes (≥ {@link MIN_MAX_FRAME_BYTES}). */
  maxFrameBytes: number;
  /** Flag bits; 0 in version 1. Receivers ignore unknown bits. Default 0. */
  flags?: number;
  /**
   * Feature bits (u32, {@link FEATURE_BATCH}): given, the HELLO carries the features field
   * (24 bytes); left out, it is 16 bytes. Decoded as 0 when the field is absent.
   */
  features?: number;
  /**
   * The sender's byte window W (u32, PROTOCOL.md §5.4), bytes 24–27: given, the HELLO is
   * 28 bytes (`features` must be given too, with `FEATURE_CREDIT_WINDOW` set). Decoded only
   * when the features have that bit and the payload holds the field; the value as sent
   * (`creditWindowBytes` of core's protocol module reads it into a window).
   */
  creditWindowBytes?: number;
}

/** A decoded HELLO: every field, the optional ones when the payload has them. */
export type DecodedHello = Required<Omit<Hello, "features" | "creditWindowBytes">> &
  Pick<Hello, "features" | "creditWindowBytes">;

/** The fields of a GOAWAY payload. */
export interface GoAway {
  /** Status code (gRPC code set; 0..255 on the wire). */
  code: number;
  /** Reason text for humans; may be empty. */
  message: string;
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8");

/**
 * Encodes a HELLO payload: 16 bytes, 24 when `features` is given, 28 with `creditWindowBytes`.
 * Throws INVALID_ARGUMENT on out-of-range fields, and on a window without features that
 * announce it.
 */
export function encodeHello(hello: Hello): Uint8Array {
  const { version, maxFrameBytes, features, creditWindowBytes: window } = hello;
  const flags = hello.flags ?? 0;
  if (
    !isUint(version, 0xffff) ||
    !isUint(flags, 0xffff) ||
    !isUint(maxFrameBytes, 0xffff_ffff) ||
    (features !== undefined && !isUint(features, 0xffff_ffff)) ||
    (window !== undefined &&
      (!isUint(window, 0xffff_ffff) || ((features ?? 0) & FEATURE_CREDIT_WINDOW) === 0))
  ) {
    throw new NearwireError(
      Code.InvalidArgument,
      `HELLO field out of range: version ${version}, flags ${flags}, maxFrameBytes ${maxFrameBytes}, features ${features}, creditWindowBytes ${window}`,
    );
  }
  const out = new Uint8Array(
    features === undefined
      ? HELLO_PAYLOAD_BYTES
      : window === undefined
        ? HELLO_WITH_FEATURES_BYTES
        : HELLO_WITH_WINDOW_BYTES,
  );
  out.set(HELLO_MAGIC, 0);
  const view = new DataView(out.buffer);
  view.setUint16(8, version);
  view.setUint16(10, flags);
  view.setUint32(12, maxFrameBytes);
  if (features !== undefined) {
    out.set(HELLO_FEATURES_TAG, HELLO_PAYLOAD_BYTES);
    view.setUint32(20, features);
  }
  if (window !== undefined) view.setUint32(24, window);
  return out;
}

/**
 * Decodes a HELLO payload. Throws INVALID_ARGUMENT, reason `bad-preface`, when it is shorter
 * than 16 bytes, the magic is wrong, or `maxFrameBytes` < {@link MIN_MAX_FRAME_BYTES}. The
 * version is returned as sent: comparing it is the caller's job. `features` is left out when
 * the payload has no features field (fewer than 24 bytes, or bytes 16–19 other than `FEAT`);
 * `creditWindowBytes` when the features lack `FEATURE_CREDIT_WINDOW` or the payload is shorter
 * than 28 bytes (the bit then announces nothing; `features` are returned as sent).
 */
export function decodeHello(payload: Uint8Array): DecodedHello {
  if (payload.length < HELLO_PAYLOAD_BYTES) {
    throw badPreface(`HELLO payload ${payload.length} B < ${HELLO_PAYLOAD_BYTES}`);
  }
  for (let i = 0; i < HELLO_MAGIC.length; i++) {
    if (payload[i] !== HELLO_MAGIC[i]) throw badPreface("HELLO magic is not NEARWIRE");
  }
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const hello: DecodedHello = {
    version: view.getUint16(8),
    flags: view.getUint16(10),
    maxFrameBytes: view.getUint32(12),
  };
  if (hasFeatures(payload)) {
    hello.features = view.getUint32(20);
    if ((hello.features & FEATURE_CREDIT_WINDOW) !== 0 && payload.length >= HELLO_WITH_WINDOW_BYTES)
      hello.creditWindowBytes = view.getUint32(24);
  }
  if (hello.maxFrameBytes < MIN_MAX_FRAME_BYTES) {
    throw badPreface(`HELLO maxFrameBytes ${hello.maxFrameBytes} < ${MIN_MAX_FRAME_BYTES}`);
  }
  return hello;
}

/**
 * Encodes a GOAWAY payload: the code byte, then `message` as UTF-8, cut to at most
 * {@link GOAWAY_MAX_MESSAGE_BYTES} bytes (at a character boundary).
 */
export function encodeGoAway(code: number, message: string): Uint8Array {
  if (!isUint(code, 0xff))
    throw new NearwireError(Code.InvalidArgument, `GOAWAY code ${code} is not a u8`);
  const out = new Uint8Array(1 + GOAWAY_MAX_MESSAGE_BYTES);
  out[0] = code;
  const { written } = utf8.encodeInto(message, out.subarray(1));
  return out.subarray(0, 1 + written);
}

/**
 * Decodes a GOAWAY payload. Throws INVALID_ARGUMENT, reason `malformed-frame`, when it is
 * empty. Invalid UTF-8 in the text is replaced with U+FFFD, never an error.
 */
export function decodeGoAway(payload: Uint8Array): GoAway {
  if (payload.length < 1) {
    throw new NearwireError(Code.InvalidArgument, "GOAWAY payload 0 B < 1", {
      reason: "malformed-frame",
    });
  }
  return { code: payload[0] as number, message: utf8Decoder.decode(payload.subarray(1)) };
}

function hasFeatures(payload: Uint8Array): boolean {
  if (payload.length < HELLO_WITH_FEATURES_BYTES) return false;
  for (let i = 0; i < HELLO_FEATURES_TAG.length; i++) {
    if (payload[HELLO_PAYLOAD_BYTES + i] !== HELLO_FEATURES_TAG[i]) return false;
  }
  return true;
}

function badPreface(message: string): NearwireError {
  return new NearwireError(Code.InvalidArgument, message, { reason: "bad-preface" });
}

function isUint(n: number, max: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= max;
}
