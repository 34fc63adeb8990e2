/**
 * CRC-32C (Castagnoli): reflected polynomial 0x82F63B78, initial value 0xFFFFFFFF, final XOR
 * 0xFFFFFFFF; check value over ASCII `123456789` is 0xE3069283 (PROTOCOL.md §2).
 */
import { native } from "./native.js";

/**
 * CRC-32C of the bytes of `data` (its `byteOffset` and `length` are honoured; the bytes are read
 * in place, never copied), as an unsigned 32-bit integer. `initial` is a previous result, to
 * chain: `crc32c(b, crc32c(a))` equals the CRC of `a` followed by `b` (default 0: a fresh CRC).
 * Throws a `TypeError` with code `ERR_INVALID_ARG_TYPE` when `data` is not a Uint8Array (Buffer
 * is one) or `initial` is not a number. Uses SSE4.2's CRC32 instruction: a fixed call cost plus
 * a small cost per byte (`packages/frame/bench/crc-threshold.ts` measures both).
 */
export const crc32c: (data: Uint8Array, initial?: number) => number = native.crc32c;

/**
 * The implementation picked at load from the CPU: `"sse4.2"` (x86-64 `crc32` instruction, three
 * interleaved streams), `"armv8-crc"` (arm64 `crc32c*` instructions, same scheme) or
 * `"slice-by-8"` (portable C tables, for CPUs without either).
 */
export const crc32cNativeImplementation: "sse4.2" | "armv8-crc" | "slice-by-8" =
  native.implementation;
