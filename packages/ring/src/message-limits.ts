import { DEFAULT_MAX_MESSAGE_BYTES, ENVELOPE_HEADROOM_BYTES } from "@nearwire/core";
import { checkRingBytes, maxPayloadFor } from "./ring-layout.js";

/**
 * Room left in one ring record for the RPC envelope (call id, method path, metadata) on top of
 * a message, bytes: core's `ENVELOPE_HEADROOM_BYTES` (64 KiB), or a quarter of the record when
 * that is less (rings of 512 KiB and less), where 64 KiB would leave little or no room.
 */
export function envelopeHeadroomFor(ringBytes: number): number {
  checkRingBytes(ringBytes);
  return Math.min(ENVELOPE_HEADROOM_BYTES, Math.floor(maxPayloadFor(ringBytes) / 4));
}

/**
 * Default `maxMessageBytes` of a transport with rings of `ringBytes`: the smaller of core's
 * 4 MiB and one record's payload minus {@link envelopeHeadroomFor}. Positive for every valid
 * ring: 1,524 B for 4 KiB rings, 24,564 B for 64 KiB, 2 MiB − 64 KiB − 16 B for the default
 * 4 MiB. Throws INVALID_ARGUMENT for a bad `ringBytes`.
 */
export function maxMessageBytesFor(ringBytes: number): number {
  const record = maxPayloadFor(ringBytes);
  return Math.min(DEFAULT_MAX_MESSAGE_BYTES, record - envelopeHeadroomFor(ringBytes));
}
