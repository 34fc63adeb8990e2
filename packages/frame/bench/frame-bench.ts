/**
 * Encode + decode cost of one frame, median of 9 runs, per payload size.
 * Run: node --import tsx packages/frame/bench/frame-bench.ts
 */
import {
  crc32cBackend,
  crc32cImplementation,
  encodeFrame,
  encodeFrameInto,
  FrameDecoder,
} from "../src/index.js";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

console.log(`crc32c: ${crc32cImplementation} (${crc32cBackend}); node ${process.version}`);
for (const size of [64, 1024, 16384, 65536]) {
  const payload = new Uint8Array(size).map((_, i) => i & 0xff);
  let delivered = 0;
  const decoder = new FrameDecoder({ onFrame: () => delivered++ });
  const iterations = Math.max(2000, Math.floor(50_000_000 / (size + 64)));
  const scratch = Buffer.allocUnsafe(size + 9);
  const alloc: number[] = [];
  const into: number[] = [];
  for (let run = 0; run < 9; run++) {
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) decoder.push(encodeFrame(0x80, payload));
    alloc.push(Number(process.hrtime.bigint() - t0) / iterations);
    t0 = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) {
      const n = encodeFrameInto(scratch, 0, 0x80, payload);
      decoder.push(scratch.subarray(0, n));
    }
    into.push(Number(process.hrtime.bigint() - t0) / iterations);
  }
  if (delivered !== 18 * iterations) throw new Error("lost frames");
  console.log(
    `${String(size).padStart(6)} B  encodeFrame+push ${(median(alloc) / 1000).toFixed(3)} µs   encodeFrameInto+push ${(median(into) / 1000).toFixed(3)} µs`,
  );
}
