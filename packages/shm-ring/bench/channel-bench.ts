/**
 * Channel-layer measurements of shm-ring (a script, not a test):
 *   node --import tsx bench/channel-bench.ts
 * Prints medians of several runs: 64 B round trip p50 (spin), one-way 64 B msgs/s (spin),
 * one-way 64 KiB GB/s (spin), and the idle CPU of a connected, silent adaptive pair.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Channel } from "@nearwire/core";
import type { WaitMode } from "../src/index.js";
import { createShmRingChannelProvider } from "../src/index.js";
import { spawnPeer } from "../test/support/spawn-peer.js";

const dir = mkdtempSync(join(tmpdir(), "nw-shm-bench-"));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

async function withPeer<T>(
  wait: WaitMode,
  fn: (ch: Channel, cpu: () => Promise<number>) => Promise<T>,
): Promise<T> {
  const address = join(dir, `b${Math.random().toString(36).slice(2, 8)}.sock`);
  const peer = await spawnPeer(["server", address, wait, String(4 * 1024 * 1024), "echo"]);
  try {
    const ch = await createShmRingChannelProvider({ address, wait }).connect();
    const cpu = async () => {
      peer.command("cpu");
      const u = JSON.parse(await peer.line()) as { user: number; system: number };
      return u.user + u.system;
    };
    const out = await fn(ch, cpu);
    await ch.close();
    return out;
  } finally {
    await peer.stop();
  }
}

/** p50 of per-batch mean round trips (batches of 100 keep clock reads off the hot path), µs. */
async function roundTrip(batches: number): Promise<number> {
  const per = 100;
  return withPeer(
    "spin",
    (ch) =>
      new Promise((resolve) => {
        const payload = new Uint8Array(64);
        const samples: number[] = [];
        let i = 0;
        let t0 = performance.now();
        ch.start({
          onFrame() {
            if (++i % per === 0) {
              const t = performance.now();
              samples.push(((t - t0) / per) * 1000);
              t0 = t;
              if (samples.length === batches) return resolve(median(samples.slice(batches >> 2)));
            }
            ch.send(0x80, payload);
          },
          onClose() {},
        });
        ch.send(0x80, payload);
      }),
  );
}

async function oneWay(size: number, n: number): Promise<number> {
  return withPeer(
    "spin",
    (ch) =>
      new Promise((resolve) => {
        const payload = new Uint8Array(size);
        let t0 = 0;
        ch.start({
          onFrame(type) {
            if (type === 0x83) resolve(n / ((performance.now() - t0) / 1000));
          },
          onClose() {},
        });
        let sent = 0;
        t0 = performance.now();
        const pump = () => {
          while (sent < n) {
            sent++;
            if (!ch.send(0x82, payload)) return void ch.drained().then(pump);
          }
          ch.send(0x83, new Uint8Array(0));
        };
        pump();
      }),
  );
}

async function idleCpu(ms: number): Promise<number> {
  return withPeer("adaptive", async (ch, cpu) => {
    ch.start({ onFrame() {}, onClose() {} });
    await new Promise((r) => setTimeout(r, 200));
    const c0 = process.cpuUsage();
    const p0 = await cpu();
    await new Promise((r) => setTimeout(r, ms));
    const c1 = process.cpuUsage(c0);
    const p1 = await cpu();
    return Math.max((c1.user + c1.system) / 1000 / ms, (p1 - p0) / 1000 / ms) * 100;
  });
}

const runs = Number(process.env.RUNS ?? 5);
const rtt: number[] = [];
const msgs: number[] = [];
const gbs: number[] = [];
for (let r = 0; r < runs; r++) {
  rtt.push(await roundTrip(5_000));
  msgs.push(await oneWay(64, 2_000_000));
  gbs.push(((await oneWay(65536, 20_000)) * 65536) / 1e9);
}
const idle = await idleCpu(2000);
console.log(`node ${process.version}, ${runs} runs, medians`);
console.log(
  `spin 64 B round trip p50:       ${median(rtt).toFixed(2)} µs   (runs: ${rtt.map((x) => x.toFixed(2)).join(" ")})`,
);
console.log(
  `spin 64 B one-way:              ${(median(msgs) / 1e6).toFixed(2)} M msgs/s (runs: ${msgs.map((x) => (x / 1e6).toFixed(2)).join(" ")})`,
);
console.log(
  `spin 64 KiB one-way:            ${median(gbs).toFixed(2)} GB/s (runs: ${gbs.map((x) => x.toFixed(2)).join(" ")})`,
);
console.log(`adaptive idle CPU (max side):   ${idle.toFixed(2)} % of a core`);
rmSync(dir, { recursive: true, force: true });
