/**
 * Sequence frames of the channel and ring tests (ring, shm-ring, worker, channelSuite): a
 * payload that says which frame it is and carries canary bytes, so a test sees loss, reordering,
 * duplication and torn or overwritten bytes. Importable without the test runner as
 * `@nearwire/conformance/seq-frames` (worker threads and peer processes use it).
 *
 *   offset 0  u32 little-endian  seq
 *   offset 4  byte i = (seq + i) & 0xff, to the end of the payload
 */

/** A sequence frame payload of `size` bytes (at least 4) for frame number `seq`. */
export function seqFrame(seq: number, size: number): Uint8Array {
  const out = new Uint8Array(Math.max(4, size));
  new DataView(out.buffer).setUint32(0, seq, true);
  for (let i = 4; i < out.length; i++) out[i] = (seq + i) & 0xff;
  return out;
}

/** The seq of a sequence frame (its first 4 bytes). */
export function readSeq(payload: Uint8Array): number {
  return new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0, true);
}

/**
 * Checks a sequence frame against the `expected` seq and its canary bytes; returns what is
 * wrong, or undefined when it is right.
 */
export function checkSeq(payload: Uint8Array, expected: number): string | undefined {
  if (payload.byteLength < 4) return `frame of ${payload.byteLength} B`;
  const seq = readSeq(payload);
  if (seq !== expected) return `seq ${seq} != ${expected}`;
  for (let i = 4; i < payload.byteLength; i++) {
    if (payload[i] !== ((seq + i) & 0xff)) return `seq ${seq} byte ${i} is ${payload[i]}`;
  }
  return undefined;
}
