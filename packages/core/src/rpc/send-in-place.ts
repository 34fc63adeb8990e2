import type { Channel } from "../channel.js";
import type { MessageCodec } from "../codec.js";

/** True when `channel` offers `sendWith` and `codec` offers `encodeInto`: check before building a head writer. */
export function canSendInPlace(channel: Channel, codec: MessageCodec<unknown>): boolean {
  return channel.sendWith !== undefined && codec.encodeInto !== undefined;
}

/**
 * Encodes `value` straight into the channel's send buffer (a ring slot) behind a
 * `headBytes`-byte envelope head, when the channel offers `sendWith` and the codec
 * `encodeInto`: no intermediate message or frame buffer. Returns false when it sent nothing —
 * either side cannot, there is no contiguous room, the message is over `maxMessageBytes`, or
 * encoding threw — and the caller takes the copying path, which also reports errors properly.
 */
export function sendInPlace(
  channel: Channel,
  type: number,
  headBytes: number,
  writeHead: (slot: Uint8Array) => void,
  codec: MessageCodec<unknown>,
  value: unknown,
  maxMessageBytes: number,
): boolean {
  const encodeInto = codec.encodeInto;
  if (channel.sendWith === undefined || encodeInto === undefined) return false;
  return channel.sendWith(type, (dest, offset, limit) => {
    if (limit <= headBytes) return -1;
    const slot = dest.subarray(offset, offset + limit);
    let n: number;
    try {
      n = encodeInto.call(codec, value, slot, headBytes);
    } catch {
      return -1;
    }
    if (n < 0 || n > maxMessageBytes) return -1;
    writeHead(slot);
    return headBytes + n;
  });
}
