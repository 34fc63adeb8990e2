/**
 * One-way streaming of 64 B frames over a Unix socket between two processes: the child sends
 * FRAMES frames (respecting send()'s return value), this process receives and times them.
 * Prints frames/s per run and the median of RUNS runs.
 *
 * Run: node --import tsx packages/uds/bench/stream-bench.ts [frames=2000000] [runs=5] [address]
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createUdsChannelProvider } from "../src/index.js";

const [role, ...rest] = process.argv.slice(2);

if (role === "send") {
  const [address, framesArg] = rest as [string, string];
  const frames = Number(framesArg);
  const channel = await createUdsChannelProvider({ address }).connect();
  channel.start({ onFrame() {}, onClose() {} });
  const payload = new Uint8Array(64);
  const view = new DataView(payload.buffer);
  for (let i = 0; i < frames; i++) {
    view.setUint32(0, i);
    if (!channel.send(0x80, payload)) await channel.drained();
  }
  channel.send(0x81, new Uint8Array(0));
  await channel.close();
} else {
  const frames = Number(role ?? 2_000_000);
  const runs = Number(rest[0] ?? 5);
  const address = rest[1] ?? join(tmpdir(), `nw-stream-bench-${process.pid}.sock`);
  const provider = createUdsChannelProvider({ address });
  const results: number[] = [];
  for (let run = 0; run < runs; run++) {
    const done = new Promise<number>((resolve, reject) => {
      let count = 0;
      let t0 = 0n;
      void provider
        .listen((channel) => {
          channel.start({
            onFrame(type) {
              if (type === 0x80) {
                if (count === 0) t0 = process.hrtime.bigint();
                count++;
              } else {
                const s = Number(process.hrtime.bigint() - t0) / 1e9;
                if (count !== frames) reject(new Error(`got ${count} of ${frames}`));
                resolve((count - 1) / s);
              }
            },
            onClose() {},
          });
        })
        .then((listener) => {
          const child = spawn(
            process.execPath,
            [
              "--import",
              "tsx",
              fileURLToPath(import.meta.url),
              "send",
              listener.address,
              String(frames),
            ],
            {
              stdio: "inherit",
            },
          );
          child.once("exit", () => void listener.close());
        });
    });
    const rate = await done;
    results.push(rate);
    console.log(`run ${run + 1}: ${Math.round(rate).toLocaleString("en")} frames/s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  results.sort((a, b) => a - b);
  console.log(
    `median ${Math.round(results[Math.floor(results.length / 2)] as number).toLocaleString("en")} frames/s (64 B payload, ${frames} frames, ${address})`,
  );
  if (!address.startsWith("@") && !address.includes(":")) rmSync(address, { force: true });
}
