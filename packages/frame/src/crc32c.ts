/**
 * CRC-32C (Castagnoli): reflected polynomial 0x82F63B78, initial value 0xFFFFFFFF, final XOR
 * 0xFFFFFFFF; check value over ASCII `123456789` is 0xE3069283 (PROTOCOL.md §2).
 *
 * Three backends, the first that loads wins: the optional `@nearwire/crc32c-native` addon (built
 * on install with the user's compiler; SSE4.2 / ARMv8 CRC on three interleaved streams), the
 * prebuilt `@node-rs/crc32` addon (SSE4.2 / ARMv8 CRC, one stream, no compiler needed), and a
 * portable slice-by-8 table implementation in JavaScript. Inputs shorter than
 * {@link CRC32C_NATIVE_MIN_BYTES} always use the JS loop, because the N-API call costs more than
 * the table loop for them.
 */
import { createRequire } from "node:module";

type NativeCrc32c = (input: Uint8Array, initialState?: number) => number;

// Slice-by-8 tables: TABLE[k * 256 + b] is the CRC contribution of byte b followed by k zero bytes.
const TABLE = new Int32Array(8 * 256);
for (let b = 0; b < 256; b++) {
  let c = b;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  TABLE[b] = c;
}
for (let b = 0; b < 256; b++) {
  let c = TABLE[b] as number;
  for (let k = 1; k < 8; k++) {
    c = (TABLE[c & 0xff] as number) ^ (c >>> 8);
    TABLE[k * 256 + b] = c;
  }
}

/**
 * Portable CRC-32C (slice-by-8, pure JavaScript). Same contract as {@link crc32c}; exported so
 * that tests and benchmarks can compare it with the hardware path.
 */
export function crc32cPortable(data: Uint8Array, initial = 0): number {
  return portableRange(data, 0, data.length, initial);
}

/** Slice-by-8 over `data[start … end)`. */
function portableRange(data: Uint8Array, start: number, n: number, initial: number): number {
  const t = TABLE;
  let crc = ~initial;
  let i = start;
  const end8 = n - ((n - start) & 7);
  while (i < end8) {
    const lo =
      crc ^
      ((data[i] as number) |
        ((data[i + 1] as number) << 8) |
        ((data[i + 2] as number) << 16) |
        ((data[i + 3] as number) << 24));
    crc =
      (t[1792 + (lo & 0xff)] as number) ^
      (t[1536 + ((lo >>> 8) & 0xff)] as number) ^
      (t[1280 + ((lo >>> 16) & 0xff)] as number) ^
      (t[1024 + (lo >>> 24)] as number) ^
      (t[768 + (data[i + 4] as number)] as number) ^
      (t[512 + (data[i + 5] as number)] as number) ^
      (t[256 + (data[i + 6] as number)] as number) ^
      (t[data[i + 7] as number] as number);
    i += 8;
  }
  while (i < n) {
    crc = (t[(crc ^ (data[i] as number)) & 0xff] as number) ^ (crc >>> 8);
    i++;
  }
  return ~crc >>> 0;
}

/** CRC-32C of one byte, chained from `initial` (used for the frame's type byte). */
export function crc32cByte(byte: number, initial = 0): number {
  const crc = ~initial;
  return ~((TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8)) >>> 0;
}

/** A CRC-32C function: the CRC of `data` chained from `initial` (default 0), unsigned. */
export type Crc32cFn = (data: Uint8Array, initial?: number) => number;

/** The check value must come out right, else the addon is refused rather than corrupt frames. */
function passesCheck(fn: NativeCrc32c): boolean {
  try {
    return fn(new TextEncoder().encode("123456789"), 0) >>> 0 === 0xe3069283;
  } catch {
    return false;
  }
}

// Both addons load synchronously (no top-level await, so `require("@nearwire/frame")` works):
// `@nearwire/crc32c-native` is an ES module without top-level await, which `require()` loads on
// Node >= 20.19 / 22.12 (require(esm)); `@node-rs/crc32` is CommonJS.
const requireHere = createRequire(import.meta.url);

function loadNearwireNative(): NativeCrc32c | undefined {
  try {
    const mod = requireHere("@nearwire/crc32c-native") as { crc32c?: NativeCrc32c };
    const fn = mod.crc32c;
    return typeof fn === "function" && passesCheck(fn) ? fn : undefined;
  } catch {
    return undefined;
  }
}

function loadNodeRs(): NativeCrc32c | undefined {
  try {
    const mod = requireHere("@node-rs/crc32") as { crc32c?: NativeCrc32c };
    const fn = mod.crc32c;
    return typeof fn === "function" && passesCheck(fn) ? fn : undefined;
  } catch {
    return undefined;
  }
}

const nearwireNative = loadNearwireNative();
const nodeRsNative = loadNodeRs();

/**
 * Every CRC-32C implementation that loaded on this machine, keyed by backend name, for tests and
 * benchmarks: `portable` always, `@node-rs/crc32` and `@nearwire/crc32c-native` when they load
 * and pass the check value. All have the contract of {@link crc32c} (unsigned result), and all
 * take any length, including the short inputs {@link crc32c} keeps in JavaScript.
 */
export const crc32cBackends: {
  readonly portable: Crc32cFn;
  readonly "@node-rs/crc32"?: Crc32cFn;
  readonly "@nearwire/crc32c-native"?: Crc32cFn;
} = {
  portable: crc32cPortable,
  ...(nodeRsNative === undefined
    ? {}
    : { "@node-rs/crc32": (data: Uint8Array, initial = 0) => nodeRsNative(data, initial) >>> 0 }),
  ...(nearwireNative === undefined ? {} : { "@nearwire/crc32c-native": nearwireNative }),
};

const native = nearwireNative ?? nodeRsNative;

/**
 * Inputs of at least this many bytes go to the hardware backend when one is loaded; shorter ones
 * use the slice-by-8 table loop, which has no call cost. The crossover is where the backend's
 * fixed call cost is paid back: lower for `@nearwire/crc32c-native` (64 B) than for
 * `@node-rs/crc32` (128 B). `node --import tsx packages/frame/bench/crc-threshold.ts` measures
 * both on the machine at hand.
 */
export const CRC32C_NATIVE_MIN_BYTES: number = nearwireNative !== undefined ? 64 : 128;

/**
 * Which implementation {@link crc32c} uses for inputs of at least
 * {@link CRC32C_NATIVE_MIN_BYTES}: `@nearwire/crc32c-native` (the optional addon built on install:
 * SSE4.2 / ARMv8 CRC on three interleaved streams, ~4× faster on 64 KiB), else `@node-rs/crc32`
 * (prebuilt, SSE4.2 / ARMv8 CRC), else `portable` (slice-by-8 in JavaScript).
 */
export const crc32cBackend: "@nearwire/crc32c-native" | "@node-rs/crc32" | "portable" =
  nearwireNative !== undefined
    ? "@nearwire/crc32c-native"
    : nodeRsNative !== undefined
      ? "@node-rs/crc32"
      : "portable";

/**
 * The hardware CRC-32C in use ({@link crc32cBackend}), or undefined when neither addon loaded.
 * Exported for tests and benchmarks; use {@link crc32c}, which picks by input size.
 */
export const crc32cNative: Crc32cFn | undefined =
  native === undefined
    ? undefined
    : native === nearwireNative
      ? native
      : (data, initial = 0) => native(data, initial) >>> 0;

/**
 * Which kind of CRC-32C {@link crc32c} uses for large inputs: `"hardware"` when either addon
 * loaded, `"portable"` otherwise. {@link crc32cBackend} names the addon.
 */
export const crc32cImplementation: "hardware" | "portable" =
  native === undefined ? "portable" : "hardware";

/**
 * CRC-32C of `data`, as an unsigned 32-bit integer. `initial` is a previous result, to chain:
 * `crc32c(b, crc32c(a))` equals the CRC of `a` followed by `b` (default 0: a fresh CRC).
 */
export const crc32c: Crc32cFn =
  native === undefined ? crc32cPortable : dispatch(native, CRC32C_NATIVE_MIN_BYTES);

function dispatch(hw: NativeCrc32c, minBytes: number): Crc32cFn {
  return (data, initial = 0) =>
    data.length < minBytes ? crc32cPortable(data, initial) : hw(data, initial) >>> 0;
}

/**
 * CRC-32C of `data[start … end)`, the same as `crc32c(data.subarray(start, end), initial)`.
 * Ranges under twice {@link CRC32C_NATIVE_MIN_BYTES} run the JS loop in place: the view an
 * addon call needs costs about as much as the loop itself at that size (a frame written into a
 * send batch, 64 B of message plus its envelope, is checksummed without a view).
 */
export function crc32cRange(data: Uint8Array, start: number, end: number, initial = 0): number {
  return end - start < 2 * CRC32C_NATIVE_MIN_BYTES || native === undefined
    ? portableRange(data, start, end, initial)
    : crc32c(data.subarray(start, end), initial);
}
