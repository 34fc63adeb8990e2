import { Code, DEFAULT_MAX_MESSAGE_BYTES, NearwireError } from "@nearwire/core";
import { ENVELOPE_HEADROOM_BYTES } from "@nearwire/core/protocol";

/**
 * Frame limit (`maxFrameBytes`) a ring transport asks for when its RPC engine allows messages
 * of `maxMessageBytes` (default core's 4 MiB): the message plus core's envelope headroom
 * (64 KiB), as uds and grpc-uds announce. Independent of the ring size: frames larger than
 * one record travel as fragment records (PROTOCOL.md §6.3).
 */
export function maxFrameBytesFor(maxMessageBytes: number = DEFAULT_MAX_MESSAGE_BYTES): number {
  return maxMessageBytes + ENVELOPE_HEADROOM_BYTES;
}

/** Default `maxFrameBytes` of a ring channel: 4 MiB + 64 KiB. */
export const DEFAULT_MAX_FRAME_BYTES: number = maxFrameBytesFor();

/**
 * The frame limit of a connection whose sides asked for `a` and `b` (`undefined`: a peer that
 * does not fragment): the smaller, but never less than one record's payload (`maxPayload`).
 */
export function agreeMaxFrameBytes(a: number, b: number | undefined, maxPayload: number): number {
  return Math.max(maxPayload, Math.min(a, b ?? maxPayload));
}

/**
 * Checks a `maxFrameBytes` option or handshake value: an integer in [1, 2^31 - 1]; throws
 * INVALID_ARGUMENT otherwise (naming `what`).
 */
export function checkMaxFrameBytes(value: unknown, what = "maxFrameBytes"): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 0x7fffffff) {
    throw new NearwireError(
      Code.InvalidArgument,
      `${what} ${String(value)} is not an integer in [1, 2147483647]`,
    );
  }
  return value;
}
