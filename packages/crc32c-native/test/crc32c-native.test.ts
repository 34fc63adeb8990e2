import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { seededBytes } from "@nearwire/conformance";
import { Code } from "@nearwire/core";
import { crc32c, crc32cNativeImplementation } from "../src/index.js";
import { native } from "../src/native.js";

/** Bit-at-a-time reference, independent of every table and instruction under test. */
function crc32cBitwise(data: Uint8Array, initial = 0): number {
  let crc = ~initial >>> 0;
  for (const b of data) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return ~crc >>> 0;
}

const check = new TextEncoder().encode("123456789");
const implementations: [string, (d: Uint8Array, i?: number) => number][] = [
  [`crc32c (${crc32cNativeImplementation})`, crc32c],
  ["crc32cSliceBy8 (portable C)", native.crc32cSliceBy8],
];
// Sizes around every boundary of the C code: 8-byte words, the 3 × 256 and 3 × 8192 blocks.
const sizes = [
  0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 767, 768, 769, 1000,
  4096, 8191, 8192, 24575, 24576, 24577, 65535, 65536, 65537, 100_003,
];
for (let n = 1; n <= 64; n++) if (!sizes.includes(n)) sizes.push(n);

describe("@nearwire/crc32c-native", () => {
  it("picks the instruction set of this CPU", () => {
    const flags = readFileSync("/proc/cpuinfo", "utf8");
    if (process.arch === "x64" && /\bsse4_2\b/.test(flags))
      assert.equal(crc32cNativeImplementation, "sse4.2");
    else if (process.arch === "arm64" && /\bcrc32\b/.test(flags))
      assert.equal(crc32cNativeImplementation, "armv8-crc");
    else assert.equal(crc32cNativeImplementation, "slice-by-8");
  });

  for (const [name, fn] of implementations) {
    it(`${name}: check value 123456789 → 0xE3069283; empty input`, () => {
      assert.equal(fn(check), 0xe3069283);
      assert.equal(fn(check, 0), 0xe3069283);
      assert.equal(fn(Buffer.from("123456789")), 0xe3069283);
      assert.equal(fn(new Uint8Array(0)), 0);
      assert.equal(fn(new Uint8Array(0), 0xdeadbeef), 0xdeadbeef);
    });

    it(`${name}: agrees with the bitwise reference for every size, offset and initial value`, () => {
      const pool = seededBytes(20261130, 100_003 + 64);
      let seed = 7;
      for (const n of sizes) {
        for (const offset of [0, 1, 3, 7, 8, 13]) {
          seed = (seed * 1103515245 + 12345) >>> 0;
          const view = pool.subarray(offset, offset + n);
          const want = crc32cBitwise(view);
          assert.equal(fn(view), want, `n ${n} offset ${offset}`);
          assert.equal(fn(view, seed), crc32cBitwise(view, seed), `n ${n} offset ${offset} init`);
        }
      }
    });

    it(`${name}: 1 MiB + 3 at an odd offset; chaining at any cut equals the whole`, () => {
      const big = seededBytes(99, 1024 * 1024 + 3 + 5);
      const view = new Uint8Array(big.buffer, 5, 1024 * 1024 + 3);
      const want = crc32cBitwise(view);
      assert.equal(fn(view), want);
      for (const cut of [0, 1, 7, 777, 24577, 65536, view.length - 1, view.length]) {
        assert.equal(fn(view.subarray(cut), fn(view.subarray(0, cut))), want, `cut ${cut}`);
      }
    });
  }

  it("reads a Buffer from the pool at its own byteOffset", () => {
    const buf = Buffer.from("xx123456789yy").subarray(2, 11);
    assert.ok(buf.byteOffset > 0 || buf.buffer.byteLength > buf.length);
    assert.equal(crc32c(buf), 0xe3069283);
    assert.equal(crc32c(new Uint8ClampedArray(check) as unknown as Uint8Array), 0xe3069283);
  });

  it("treats initial as an unsigned 32-bit value (results above 2^31 chain)", () => {
    const a = new TextEncoder().encode("1234");
    const b = new TextEncoder().encode("56789");
    const first = crc32c(a);
    assert.equal(crc32c(b, first), 0xe3069283);
    assert.equal(crc32c(b, first | 0), 0xe3069283, "the signed form of the same bits");
  });

  it("rejects a non-Uint8Array with ERR_INVALID_ARG_TYPE and keeps working", () => {
    const bad: unknown[] = [
      undefined,
      null,
      "123456789",
      [1, 2, 3],
      new ArrayBuffer(4),
      new Uint16Array(4),
      new Float64Array(1),
      new DataView(new ArrayBuffer(4)),
    ];
    for (const value of bad) {
      assert.throws(
        () => crc32c(value as Uint8Array),
        (err: NodeJS.ErrnoException) =>
          err instanceof TypeError && err.code === "ERR_INVALID_ARG_TYPE",
        String(value),
      );
    }
    for (const initial of ["1", {}, 1n]) {
      assert.throws(
        () => crc32c(check, initial as unknown as number),
        (err: NodeJS.ErrnoException) =>
          err instanceof TypeError && err.code === "ERR_INVALID_ARG_TYPE",
      );
    }
    assert.throws(() => (crc32c as () => number)(), { code: "ERR_INVALID_ARG_TYPE" });
    assert.equal(crc32c(check), 0xe3069283);
  });

  it("a detached buffer reads as empty", () => {
    const data = new Uint8Array(64);
    structuredClone(data.buffer, { transfer: [data.buffer] });
    assert.equal(data.length, 0);
    assert.equal(crc32c(data), 0);
    assert.equal(crc32c(data, 0x12345678), 0x12345678);
  });

  it("a missing addon fails the import with FAILED_PRECONDITION not-built", () => {
    const script = fileURLToPath(new URL("./fixtures/import-native.ts", import.meta.url));
    const child = spawnSync(process.execPath, ["--import", "tsx", script], {
      env: { ...process.env, NEARWIRE_CRC32C_ADDON: "/nonexistent/nearwire_crc32c.node" },
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout.trim()), {
      code: Code.FailedPrecondition,
      reason: "not-built",
    });
  });
});
