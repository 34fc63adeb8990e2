import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { field, inputBytes, readVectors, seededBytes } from "@nearwire/conformance";
import fc from "fast-check";
import {
  CRC32C_NATIVE_MIN_BYTES,
  crc32c,
  crc32cBackend,
  crc32cBackends,
  crc32cByte,
  crc32cImplementation,
  crc32cNative,
  crc32cPortable,
  crc32cRange,
} from "../src/index.js";

/** Bit-at-a-time reference, independent of the table code. */
function crc32cBitwise(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of data) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

const check = new TextEncoder().encode("123456789");
const implementations: [string, (d: Uint8Array, i?: number) => number][] = [
  ...Object.entries(crc32cBackends),
  ["crc32c (auto)", crc32c],
];
if (crc32cNative !== undefined) implementations.push(["crc32cNative", crc32cNative]);

/** Whether the optional addon package is importable here (built on install with a compiler). */
async function nearwireNativeImportable(): Promise<boolean> {
  try {
    await import("@nearwire/crc32c-native");
    return true;
  } catch {
    return false;
  }
}

describe("crc32c", () => {
  it("uses the hardware implementation on this machine (x86-64 / arm64 with @node-rs/crc32)", () => {
    // The package ships prebuilt binaries for these platforms; elsewhere "portable" is expected.
    if (
      ["x64", "arm64"].includes(process.arch) &&
      ["linux", "darwin", "win32"].includes(process.platform)
    ) {
      assert.equal(crc32cImplementation, "hardware");
      assert.ok(crc32cBackends["@node-rs/crc32"] !== undefined);
    } else {
      assert.equal(crc32cImplementation, "portable");
    }
  });

  it("prefers @nearwire/crc32c-native whenever it was built, else @node-rs/crc32", async () => {
    if (await nearwireNativeImportable()) {
      assert.equal(crc32cBackend, "@nearwire/crc32c-native");
      assert.equal(crc32cNative, crc32cBackends["@nearwire/crc32c-native"]);
      assert.equal(CRC32C_NATIVE_MIN_BYTES, 64);
    } else {
      assert.equal(crc32cBackends["@nearwire/crc32c-native"], undefined);
      assert.equal(
        crc32cBackend,
        crc32cBackends["@node-rs/crc32"] !== undefined ? "@node-rs/crc32" : "portable",
      );
      assert.equal(CRC32C_NATIVE_MIN_BYTES, 128);
    }
    assert.equal(crc32cImplementation, crc32cBackend === "portable" ? "portable" : "hardware");
  });

  it("every backend agrees with portable on seeded random inputs of many sizes and offsets", () => {
    const sizes = [0, 65, 127, 128, 129, 255, 256, 767, 768, 769, 4096, 24576, 24577, 65535];
    for (let n = 1; n <= 64; n++) sizes.push(n);
    const pool = seededBytes(424242, 1024 * 1024 + 3 + 16);
    let seed = 1;
    for (const n of [...sizes, 65536, 1024 * 1024 + 3]) {
      for (const offset of [0, 1, 3, 8, 13]) {
        if (offset + n > pool.length) continue;
        const view = pool.subarray(offset, offset + n);
        seed = (seed * 1103515245 + 12345) >>> 0;
        const want = crc32cPortable(view);
        const wantChained = crc32cPortable(view, seed);
        for (const [name, fn] of implementations) {
          assert.equal(fn(view), want, `${name} n ${n} offset ${offset}`);
          assert.equal(fn(view, seed), wantChained, `${name} n ${n} offset ${offset} chained`);
        }
      }
    }
    assert.equal(crc32cPortable(pool.subarray(5, 4101)), crc32cBitwise(pool.subarray(5, 4101)));
  });

  for (const [name, fn] of implementations) {
    it(`${name}: check value 123456789 → 0xE3069283`, () => {
      assert.equal(fn(check), 0xe3069283);
      assert.equal(crc32cBitwise(check), 0xe3069283);
    });

    it(`${name}: PROTOCOL.md §2 vectors`, () => {
      const vectors = [...readVectors().values()].filter((v) => v.name.startsWith("crc-"));
      assert.ok(vectors.length >= 4);
      for (const v of vectors) {
        const want = Number.parseInt(field(v, "crc32c").replace(/\s+/g, ""), 16);
        assert.equal(fn(inputBytes(v)), want, v.name);
      }
    });

    it(`${name}: empty input is 0 and chaining from a previous result equals the whole`, () => {
      assert.equal(fn(new Uint8Array(0)), 0);
      const data = new Uint8Array(1000).map((_, i) => (i * 7 + 3) & 0xff);
      for (const cut of [0, 1, 7, 8, 9, 127, 128, 129, 500, 1000]) {
        assert.equal(
          fn(data.subarray(cut), fn(data.subarray(0, cut))),
          crc32cBitwise(data),
          `cut ${cut}`,
        );
      }
    });
  }

  it("all implementations agree with the bitwise reference on random inputs (seeded)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 3 * CRC32C_NATIVE_MIN_BYTES }),
        fc.nat(),
        (data, seed) => {
          const want = crc32cBitwise(data);
          for (const [name, fn] of implementations) assert.equal(fn(data), want, name);
          const initial = seed >>> 0;
          const chained = crc32cPortable(data, initial);
          for (const [name, fn] of implementations)
            assert.equal(fn(data, initial), chained, `${name} chained`);
        },
      ),
      { seed: 20261130, numRuns: 300 },
    );
  });

  it("portable and hardware agree on large random inputs", () => {
    const big = new Uint8Array(256 * 1024);
    let x = 12345;
    for (let i = 0; i < big.length; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      big[i] = x >>> 24;
    }
    const want = crc32cPortable(big);
    assert.equal(crc32c(big), want);
    assert.equal(crc32cBitwise(big.subarray(0, 4096)), crc32cPortable(big.subarray(0, 4096)));
    if (crc32cNative !== undefined) assert.equal(crc32cNative(big), want);
  });

  it("crc32cByte chains one byte", () => {
    for (const b of [0, 1, 0x80, 0xff]) {
      assert.equal(crc32cByte(b), crc32cBitwise(new Uint8Array([b])));
      assert.equal(
        crc32c(new Uint8Array([0x61, 0x62]), crc32cByte(b)),
        crc32cBitwise(new Uint8Array([b, 0x61, 0x62])),
      );
    }
  });

  it("crc32cRange equals crc32c of the same subarray, short (JS loop) and long (addon) ranges", () => {
    const data = new Uint8Array(3 * CRC32C_NATIVE_MIN_BYTES + 37);
    for (let i = 0; i < data.length; i++) data[i] = (i * 131 + 7) & 0xff;
    for (const [start, end] of [
      [0, 0],
      [0, 1],
      [3, 11],
      [5, 5 + CRC32C_NATIVE_MIN_BYTES - 1],
      [1, 1 + CRC32C_NATIVE_MIN_BYTES],
      [7, data.length],
    ] as const) {
      const want = crc32cBitwise(data.subarray(start, end));
      assert.equal(crc32cRange(data, start, end), want, `[${start}, ${end})`);
      assert.equal(
        crc32cRange(data, start, end, 0x1234),
        crc32c(data.subarray(start, end), 0x1234),
        `[${start}, ${end}) chained`,
      );
    }
  });
});
