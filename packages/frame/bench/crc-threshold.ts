/**
 * Measures ns per call of every loaded CRC-32C backend (portable JS, @node-rs/crc32,
 * @nearwire/crc32c-native) at several input sizes, to pick CRC32C_NATIVE_MIN_BYTES.
 * Run: node --import tsx packages/frame/bench/crc-threshold.ts
 * Prints the median of 7 runs per size and backend.
 */
import { crc32cBackend, crc32cBackends } from "../src/crc32c.js";

function nsPerCall(fn: (d: Uint8Array) => number, data: Uint8Array): number {
  const iterations = Math.max(2000, Math.floor(4_000_000 / (data.length + 16)));
  const samples: number[] = [];
  let sink = 0;
  for (let run = 0; run < 7; run++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) sink ^= fn(data);
    samples.push(Number(process.hrtime.bigint() - t0) / iterations);
  }
  if (sink === 0.5) console.log(sink);
  samples.sort((a, b) => a - b);
  return samples[3] as number;
}

const backends = Object.entries(crc32cBackends);
console.log(`crc32c backend in use: ${crc32cBackend}; node ${process.version}`);
console.log(`bytes  ${backends.map(([name]) => name.padStart(24)).join("")}   (ns per call)`);
for (const size of [1, 8, 16, 32, 48, 64, 96, 128, 192, 256, 512, 1024, 4096, 65536]) {
  const data = new Uint8Array(size).map((_, i) => (i * 31) & 0xff);
  const cells = backends.map(([, fn]) =>
    nsPerCall((d) => fn(d), data)
      .toFixed(1)
      .padStart(24),
  );
  console.log(`${String(size).padStart(5)}  ${cells.join("")}`);
}
