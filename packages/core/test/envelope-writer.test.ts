import assert from "node:assert/strict";
import { test } from "node:test";
import type { Channel } from "../src/channel.js";
import type { MessageCodec } from "../src/codec.js";
import { FrameType } from "../src/frame-type.js";
import { MESSAGE_HEAD_BYTES } from "../src/rpc/envelope.js";
import { EnvelopeWriter } from "../src/rpc/envelope-writer.js";

/**
 * The channel side of `sendWith` as a ring has it: one big buffer, the slot in its middle
 * (`SLOT_AT`, `slot` bytes), guard bytes on both sides. Frames that took the copying path land
 * in `sent`.
 */
const SLOT_AT = 100;
function slotChannel(slot: number) {
  const buffer = new Uint8Array(SLOT_AT + slot + 100).fill(0xee);
  const filled: Uint8Array[] = [];
  const sent: Uint8Array[] = [];
  const channel = {
    closed: false,
    peer: "test",
    sendWith(type: number, fill: (dest: Uint8Array, offset: number, limit: number) => number) {
      assert.equal(type, FrameType.Message);
      const n = fill(buffer, SLOT_AT, slot);
      if (n < 0) return false;
      filled.push(buffer.slice(SLOT_AT, SLOT_AT + n));
      return true;
    },
    send(_type: number, payload: Uint8Array) {
      sent.push(payload.slice());
      return true;
    },
  } as unknown as Channel;
  const guardsIntact = () =>
    buffer.subarray(0, SLOT_AT).every((b) => b === 0xee) &&
    buffer.subarray(SLOT_AT + slot).every((b) => b === 0xee);
  return { channel, filled, sent, guardsIntact };
}

/** A codec of byte arrays with encodeIntoRange, encodeInto, or both; it records what it got. */
function bytesCodec(kind: "range" | "into" | "both") {
  const got: string[] = [];
  const codec: MessageCodec<Uint8Array> = {
    decodesInPlace: true,
    encode: (v) => v,
    decode: (b) => b,
  };
  if (kind !== "into") {
    codec.encodeIntoRange = (v, dest, start, end) => {
      got.push(`range ${dest.byteLength} ${start} ${end}`);
      if (v.byteLength > end - start) return -1;
      dest.set(v, start);
      return v.byteLength;
    };
  }
  if (kind !== "range") {
    codec.encodeInto = (v, dest, offset) => {
      got.push(`into ${dest.byteLength} ${offset}`);
      if (v.byteLength > dest.byteLength - offset) return -1;
      dest.set(v, offset);
      return v.byteLength;
    };
  }
  return { codec: codec as MessageCodec<unknown>, got };
}

const message = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 13 + 1) & 0xff);
const frameOf = (callId: number, m: Uint8Array) => {
  const f = new Uint8Array(MESSAGE_HEAD_BYTES + m.byteLength);
  new DataView(f.buffer).setUint32(0, callId);
  f.set(m, MESSAGE_HEAD_BYTES);
  return f;
};

test("a MESSAGE is encoded into a slot in the middle of the channel's buffer, never outside it", () => {
  const slot = 64;
  for (const kind of ["range", "into", "both"] as const) {
    const { channel, filled, sent, guardsIntact } = slotChannel(slot);
    const { codec, got } = bytesCodec(kind);
    const writer = new EnvelopeWriter(channel, 1 << 20);
    const fits = message(slot - MESSAGE_HEAD_BYTES);
    writer.message(7, codec, fits, "request");
    assert.deepEqual(filled, [frameOf(7, fits)], kind);
    // encodeIntoRange gets the whole buffer and the slot's bounds; encodeInto alone gets a view
    // of the slot (its head first).
    const bufferBytes = SLOT_AT + slot + 100;
    assert.deepEqual(
      got,
      [
        kind === "into"
          ? `into ${slot} ${MESSAGE_HEAD_BYTES}`
          : `range ${bufferBytes} ${SLOT_AT + MESSAGE_HEAD_BYTES} ${SLOT_AT + slot}`,
      ],
      kind,
    );
    assert.ok(guardsIntact(), `${kind}: bytes outside the slot untouched`);
    assert.deepEqual(sent, [], kind);

    // One byte too many for the slot: the codec says -1, and the frame is sent by copy, whole.
    const big = message(slot - MESSAGE_HEAD_BYTES + 1);
    writer.message(8, codec, big, "request");
    assert.deepEqual(sent, [frameOf(8, big)], kind);
    assert.equal(filled.length, 1, kind);
    assert.ok(guardsIntact(), `${kind}: bytes outside the slot untouched after a refusal`);
  }
});
