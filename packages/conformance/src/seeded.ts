/**
 * Seeded pseudo-random data for tests, fuzzers and the bench, so that a run (and a failing
 * input) reproduces from its seed. The one copy in the repository: packages import it from
 * `@nearwire/conformance` (the bench from `@nearwire/conformance/seeded`, which pulls in no test
 * runner).
 */

/**
 * `n` pseudo-random bytes from `seed` (xorshift32; seed 0 is treated as 1). The same seed gives
 * the same bytes on every machine.
 */
export function seededBytes(seed: number, n: number): Uint8Array {
  let x = seed >>> 0 || 1;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** A seeded generator of {@link prng}. */
export interface Rng {
  /** The next unsigned 32-bit value. */
  u32(): number;
  /** An integer in `0 … n-1` (0 when `n <= 0`). */
  int(n: number): number;
  /** `n` fresh random bytes. */
  bytes(n: number): Buffer;
}

/** A small seeded PRNG (mulberry32). */
export function prng(seed: number): Rng {
  let a = seed >>> 0;
  const u32 = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const int = (n: number): number => (n <= 0 ? 0 : u32() % n);
  return {
    u32,
    int,
    bytes: (n) => {
      const b = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) b[i] = u32() & 0xff;
      return b;
    },
  };
}

/**
 * The `k`-th independent generator derived from `seed` (one per input of a batch, so that what
 * one input draws does not depend on how the others ran).
 */
export function derivedPrng(seed: number, k: number): Rng {
  return prng(seed ^ Math.imul(k + 1, 0x9e3779b9));
}
