/**
 * The HPACK Huffman code (RFC 7541 Appendix B, §5.2) and a table-driven decoder.
 *
 * A Huffman-coded string is the concatenation of each octet's code, most significant bit first,
 * padded to an octet boundary with the high bits of EOS (all 1s, at most 7 bits). The code is
 * canonical: codes of one length are consecutive, in symbol order.
 *
 * The decoder walks a 4-bit state machine built at module load: a state is an internal node of
 * the code tree (256 of them, root = 0), and each nibble moves to a new node and emits at most one
 * octet (the shortest code is 5 bits). This reads 2 table entries per input octet instead of 8
 * tree steps.
 */

import { HpackError } from "./hpack-error.js";

/**
 * Huffman code of each symbol (octets 0..255, then EOS = 256), right-aligned: the low
 * {@link HUFFMAN_LENGTHS}`[sym]` bits are the code, sent most significant bit first.
 */
export const HUFFMAN_CODES: readonly number[] = [
  0x1ff8, 0x7fffd8, 0xfffffe2, 0xfffffe3, 0xfffffe4, 0xfffffe5, 0xfffffe6, 0xfffffe7, 0xfffffe8,
  0xffffea, 0x3ffffffc, 0xfffffe9, 0xfffffea, 0x3ffffffd, 0xfffffeb, 0xfffffec, 0xfffffed,
  0xfffffee, 0xfffffef, 0xffffff0, 0xffffff1, 0xffffff2, 0x3ffffffe, 0xffffff3, 0xffffff4,
  0xffffff5, 0xffffff6, 0xffffff7, 0xffffff8, 0xffffff9, 0xffffffa, 0xffffffb, 0x14, 0x3f8, 0x3f9,
  0xffa, 0x1ff9, 0x15, 0xf8, 0x7fa, 0x3fa, 0x3fb, 0xf9, 0x7fb, 0xfa, 0x16, 0x17, 0x18, 0x0, 0x1,
  0x2, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x5c, 0xfb, 0x7ffc, 0x20, 0xffb, 0x3fc, 0x1ffa,
  0x21, 0x5d, 0x5e, 0x5f, 0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b,
  0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72, 0xfc, 0x73, 0xfd, 0x1ffb, 0x7fff0, 0x1ffc, 0x3ffc, 0x22,
  0x7ffd, 0x3, 0x23, 0x4, 0x24, 0x5, 0x25, 0x26, 0x27, 0x6, 0x74, 0x75, 0x28, 0x29, 0x2a, 0x7, 0x2b,
  0x76, 0x2c, 0x8, 0x9, 0x2d, 0x77, 0x78, 0x79, 0x7a, 0x7b, 0x7ffe, 0x7fc, 0x3ffd, 0x1ffd,
  0xffffffc, 0xfffe6, 0x3fffd2, 0xfffe7, 0xfffe8, 0x3fffd3, 0x3fffd4, 0x3fffd5, 0x7fffd9, 0x3fffd6,
  0x7fffda, 0x7fffdb, 0x7fffdc, 0x7fffdd, 0x7fffde, 0xffffeb, 0x7fffdf, 0xffffec, 0xffffed,
  0x3fffd7, 0x7fffe0, 0xffffee, 0x7fffe1, 0x7fffe2, 0x7fffe3, 0x7fffe4, 0x1fffdc, 0x3fffd8,
  0x7fffe5, 0x3fffd9, 0x7fffe6, 0x7fffe7, 0xffffef, 0x3fffda, 0x1fffdd, 0xfffe9, 0x3fffdb, 0x3fffdc,
  0x7fffe8, 0x7fffe9, 0x1fffde, 0x7fffea, 0x3fffdd, 0x3fffde, 0xfffff0, 0x1fffdf, 0x3fffdf,
  0x7fffeb, 0x7fffec, 0x1fffe0, 0x1fffe1, 0x3fffe0, 0x1fffe2, 0x7fffed, 0x3fffe1, 0x7fffee,
  0x7fffef, 0xfffea, 0x3fffe2, 0x3fffe3, 0x3fffe4, 0x7ffff0, 0x3fffe5, 0x3fffe6, 0x7ffff1,
  0x3ffffe0, 0x3ffffe1, 0xfffeb, 0x7fff1, 0x3fffe7, 0x7ffff2, 0x3fffe8, 0x1ffffec, 0x3ffffe2,
  0x3ffffe3, 0x3ffffe4, 0x7ffffde, 0x7ffffdf, 0x3ffffe5, 0xfffff1, 0x1ffffed, 0x7fff2, 0x1fffe3,
  0x3ffffe6, 0x7ffffe0, 0x7ffffe1, 0x3ffffe7, 0x7ffffe2, 0xfffff2, 0x1fffe4, 0x1fffe5, 0x3ffffe8,
  0x3ffffe9, 0xffffffd, 0x7ffffe3, 0x7ffffe4, 0x7ffffe5, 0xfffec, 0xfffff3, 0xfffed, 0x1fffe6,
  0x3fffe9, 0x1fffe7, 0x1fffe8, 0x7ffff3, 0x3fffea, 0x3fffeb, 0x1ffffee, 0x1ffffef, 0xfffff4,
  0xfffff5, 0x3ffffea, 0x7ffff4, 0x3ffffeb, 0x7ffffe6, 0x3ffffec, 0x3ffffed, 0x7ffffe7, 0x7ffffe8,
  0x7ffffe9, 0x7ffffea, 0x7ffffeb, 0xffffffe, 0x7ffffec, 0x7ffffed, 0x7ffffee, 0x7ffffef, 0x7fffff0,
  0x3ffffee, 0x3fffffff,
];

/** Bit length (5..30) of each symbol's code in {@link HUFFMAN_CODES}; index 256 is EOS. */
export const HUFFMAN_LENGTHS: readonly number[] = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28,
  28, 28, 28, 28, 28, 28, 28, 28, 6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5,
  6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10, 13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
  7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, 15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6,
  7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, 20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23,
  23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, 22, 21, 20, 22,
  22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22,
  23, 22, 22, 23, 26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27,
  27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25,
  24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, 30,
];

/** Symbol number of EOS, the end-of-string code (30 bits of 1s); never valid inside a string. */
export const HUFFMAN_EOS = 256;

const EMIT = 1 << 16;
const FAIL = 1 << 17;

/** `DECODE_TABLE[state << 4 | nibble]` = next state (bits 0-7) | octet (8-15) | EMIT | FAIL. */
const DECODE_TABLE = new Uint32Array(256 * 16);
/** `ACCEPT[state]` = 1 when ending in that state is valid: all bits since the last octet are 1s, at most 7. */
const ACCEPT = new Uint8Array(256);

// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: builds the RFC 7541 Appendix B decoding table in one pass over the code
function buildDecoder(): void {
  // children[node * 2 + bit]: an internal node id (>= 0), or -(symbol + 1) for a leaf; 0 = unset
  // (the root is never a child).
  const children = new Int32Array(256 * 2);
  let nodes = 1;
  for (let sym = 0; sym <= HUFFMAN_EOS; sym++) {
    const code = HUFFMAN_CODES[sym] ?? 0;
    const len = HUFFMAN_LENGTHS[sym] ?? 0;
    let node = 0;
    for (let i = len - 1; i > 0; i--) {
      const slot = node * 2 + ((code >>> i) & 1);
      let next = children[slot] ?? 0;
      if (next === 0) {
        next = nodes++;
        children[slot] = next;
      }
      node = next;
    }
    children[node * 2 + (code & 1)] = -(sym + 1);
  }
  let node = 0;
  for (let depth = 0; depth <= 7; depth++) {
    ACCEPT[node] = 1;
    node = children[node * 2 + 1] ?? 0;
  }
  for (let state = 0; state < 256; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let at = state;
      let entry = 0;
      for (let bit = 3; bit >= 0; bit--) {
        const next = children[at * 2 + ((nibble >>> bit) & 1)] ?? 0;
        if (next >= 0) {
          at = next;
          continue;
        }
        const sym = -next - 1;
        if (sym === HUFFMAN_EOS) {
          entry |= FAIL;
          break;
        }
        entry |= EMIT | (sym << 8);
        at = 0;
      }
      DECODE_TABLE[(state << 4) | nibble] = entry | at;
    }
  }
}
buildDecoder();

let scratch: Uint8Array = new Uint8Array(256);

const latin1Slice = (
  Buffer.prototype as unknown as {
    latin1Slice(this: Uint8Array, start: number, end: number): string;
  }
).latin1Slice;

/**
 * `bytes[start, end)` as a latin1 string (one UTF-16 unit per octet). Short strings are built with
 * a `String.fromCharCode` loop, longer ones with Node's native latin1 slice.
 */
export function latin1String(bytes: Uint8Array, start: number, end: number): string {
  if (end - start > 8) return latin1Slice.call(bytes, start, end);
  let s = "";
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i] as number);
  return s;
}

/**
 * Decodes the Huffman-coded string `bytes[start, end)` (RFC 7541 §5.2) to a latin1 string.
 * Throws {@link HpackError} `"malformed"` when the string contains EOS, or its padding is longer
 * than 7 bits or is not all 1s.
 */
export function huffmanDecode(bytes: Uint8Array, start: number, end: number): string {
  const max = (end - start) * 2;
  if (scratch.length < max) scratch = new Uint8Array(Math.max(max, scratch.length * 2));
  const out = scratch;
  let n = 0;
  let state = 0;
  let seen = 0;
  for (let i = start; i < end; i++) {
    const octet = bytes[i] as number;
    const high = DECODE_TABLE[(state << 4) | (octet >>> 4)] as number;
    if (high & EMIT) out[n++] = (high >>> 8) & 0xff;
    const low = DECODE_TABLE[((high & 0xff) << 4) | (octet & 0xf)] as number;
    if (low & EMIT) out[n++] = (low >>> 8) & 0xff;
    state = low & 0xff;
    seen |= high | low;
  }
  if (seen & FAIL) throw new HpackError("malformed", "Huffman string contains EOS");
  if (ACCEPT[state] !== 1) throw new HpackError("malformed", "Huffman string has invalid padding");
  return latin1String(out, 0, n);
}
