/**
 * Round trip of one 64 B frame (one in flight) between two processes over a Unix socket:
 * the nearwire channel versus a bare node:net echo with a 4-byte length prefix, same run.
 * Prints p50/p99 in µs for each.
 *
 * Run: node --import tsx packages/uds/bench/rtt-bench.ts [iterations=20000]
 */
import { spawn } from "node:child_process";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createUdsChannelProvider } from "../src/index.js";

const [role, arg] = process.argv.slice(2);

if (role === "echo-channel") {
  const listener = await createUdsChannelProvider({ address: arg as string }).listen((c) =>
    c.start({
      onFrame: (t, p) => c.send(t, p),
      onClose: () => void listener.close().then(() => process.exit(0)),
    }),
  );
  process.stdout.write("ready\n");
} else if (role === "echo-net") {
  const server = net.createServer((s) => {
    let buf: Buffer = Buffer.alloc(0);
    s.on("data", (d: Buffer) => {
      buf = buf.length === 0 ? d : Buffer.concat([buf, d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const n = 4 + buf.readUInt32BE(0);
        s.write(buf.subarray(0, n));
        buf = buf.subarray(n);
      }
    });
    s.on("close", () => server.close(() => process.exit(0)));
  });
  server.listen(arg as string, () => process.stdout.write("ready\n"));
} else {
  const iterations = Number(role ?? 20_000);
  const pct = (xs: number[], p: number) =>
    xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] as number;
  const start = async (kind: string, address: string) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", fileURLToPath(import.meta.url), kind, address],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    return child;
  };
  const report = (name: string, samples: number[]) => {
    samples.sort((a, b) => a - b);
    console.log(
      `${name.padEnd(22)} p50 ${pct(samples, 0.5).toFixed(1)} µs  p99 ${pct(samples, 0.99).toFixed(1)} µs`,
    );
  };

  const pathNet = join(tmpdir(), `nw-rtt-net-${process.pid}.sock`);
  const childNet = await start("echo-net", pathNet);
  const sock = net.connect(pathNet);
  await new Promise((r) => sock.once("connect", r));
  const msg = Buffer.alloc(68);
  msg.writeUInt32BE(64, 0);
  const netSamples: number[] = [];
  await new Promise<void>((resolve) => {
    let i = 0;
    let got = 0;
    let t0 = process.hrtime.bigint();
    sock.on("data", (d: Buffer) => {
      got += d.length;
      if (got < 68) return;
      got = 0;
      if (i++ > 1000) netSamples.push(Number(process.hrtime.bigint() - t0) / 1000);
      if (i >= iterations + 1000) return resolve();
      t0 = process.hrtime.bigint();
      sock.write(msg);
    });
    sock.write(msg);
  });
  sock.destroy();
  await new Promise((r) => childNet.once("exit", r));

  const addr = join(tmpdir(), `nw-rtt-ch-${process.pid}.sock`);
  const childCh = await start("echo-channel", addr);
  const channel = await createUdsChannelProvider({ address: addr }).connect();
  const payload = new Uint8Array(64);
  const chSamples: number[] = [];
  await new Promise<void>((resolve) => {
    let i = 0;
    let t0 = process.hrtime.bigint();
    channel.start({
      onFrame() {
        if (i++ > 1000) chSamples.push(Number(process.hrtime.bigint() - t0) / 1000);
        if (i >= iterations + 1000) return resolve();
        t0 = process.hrtime.bigint();
        channel.send(0x80, payload);
      },
      onClose() {},
    });
    channel.send(0x80, payload);
  });
  await channel.close();
  await new Promise((r) => childCh.once("exit", r));
  report("bare node:net (path)", netSamples);
  report("nearwire channel (path)", chSamples);
}
