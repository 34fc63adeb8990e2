/**
 * The argument checks of {@link Channel.send}, one copy for every Channel implementation (uds,
 * shm-ring, worker, memory), so that a bad call fails with the same code and reason everywhere.
 */
import type { Channel } from "./channel.js";
import { Code } from "./code.js";
import { FrameType } from "./frame-type.js";
import { NearwireError } from "./nearwire-error.js";

/** Highest frame type value (a u8). */
const MAX_FRAME_TYPE = 0xff;

/**
 * True when `type` may be sent on a Channel: an integer in 0x10–0xFF (0x01–0x0F belong to the
 * channel itself). `sendWith` implementations use it to return false; `send` then throws.
 */
export function isSendableType(type: number): boolean {
  return type >= FrameType.Request && type <= MAX_FRAME_TYPE && Number.isInteger(type);
}

/**
 * Checks the arguments of one {@link Channel.send}, in this order, and throws:
 * UNAVAILABLE (reason `peer-closed`) when `closed`; INVALID_ARGUMENT (reason
 * `unknown-frame-type`) for a type outside 0x10–0xFF or not an integer; RESOURCE_EXHAUSTED
 * (reason `frame-too-large`) when `payloadBytes` exceeds `maxPayloadBytes`. `peer` names the
 * channel in the message.
 */
export function checkSend(
  closed: boolean,
  type: number,
  payloadBytes: number,
  maxPayloadBytes: number,
  peer: string,
): void {
  if (closed) {
    throw new NearwireError(Code.Unavailable, `channel to ${peer} is closed`, {
      reason: "peer-closed",
    });
  }
  if (!isSendableType(type)) {
    throw new NearwireError(Code.InvalidArgument, `frame type ${type} is not in 0x10..0xff`, {
      reason: "unknown-frame-type",
    });
  }
  if (payloadBytes > maxPayloadBytes) {
    throw new NearwireError(
      Code.ResourceExhausted,
      `frame ${payloadBytes} B > maxPayloadBytes ${maxPayloadBytes}`,
      { reason: "frame-too-large" },
    );
  }
}
