import assert from "node:assert/strict";
import { type ChildProcess, fork } from "node:child_process";
import net from "node:net";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  Code,
  createCodec,
  defineService,
  messageType,
  type NearwireError,
  unary,
} from "@nearwire/core";
import { decodeStatus, encodeRequest, FrameType } from "@nearwire/core/protocol";
import { decodeGoAway, encodeFrame, encodeHello, FrameDecoder } from "@nearwire/frame";
import { createUdsTransport, type UdsTransportOptions } from "../src/index.js";
import { tempDir } from "./support/channels.js";

// Issue 10 items 4–6: one hostile peer against a real server process. Each test performs the
// attack, checks that a healthy client is still served, that the server's memory stays bounded
// (process.memoryUsage() after a GC, reported by the server over IPC; printed as a diagnostic),
// and that nothing is left behind once the attacker is gone.

const MiB = 1024 * 1024;
const Bytes = messageType<Uint8Array>("nearwire.test.Bytes");
const Echo = defineService("nearwire.test.Echo", { Echo: unary(Bytes, Bytes) });
const bytesCodec = createCodec("bytes", {
  "nearwire.test.Bytes": {
    decodesInPlace: false,
    encode: (v) => v as Uint8Array,
    decode: (b) => b,
  },
});
const ECHO_PATH = new TextEncoder().encode("/nearwire.test.Echo/Echo");
const HELLO = encodeFrame(FrameType.Hello, encodeHello({ version: 1, maxFrameBytes: 4 * MiB }));
const END_STREAM = 0x01;
const fixture = fileURLToPath(new URL("./fixtures/limits-server.ts", import.meta.url));

interface Server {
  address: string;
  ask<T>(cmd: string): Promise<T>;
  mem(): Promise<NodeJS.MemoryUsage>;
  stop(): Promise<void>;
}

async function startServer(address: string, options: Omit<UdsTransportOptions, "address">) {
  const child: ChildProcess = fork(fixture, [address, JSON.stringify(options)], {
    execArgv: ["--import", "tsx", "--expose-gc"],
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server printed no ready line")), 20_000);
    child.stdout?.setEncoding("utf8").on("data", (s: string) => {
      if (s.includes("ready")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code}`));
    });
  });
  let next = 0;
  const waiting = new Map<number, (reply: unknown) => void>();
  child.on("message", (m: { id: number; reply: unknown }) => waiting.get(m.id)?.(m.reply));
  const ask = <T>(cmd: string) =>
    new Promise<T>((resolve) => {
      const id = next++;
      waiting.set(id, (r) => {
        waiting.delete(id);
        resolve(r as T);
      });
      child.send({ id, cmd });
    });
  return {
    address,
    ask,
    mem: () => ask<NodeJS.MemoryUsage>("mem"),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(t);
    },
  } satisfies Server;
}

/** A raw socket: sends HELLO, collects the frames it reads (when `read`), never closes itself. */
async function rawPeer(address: string, read: boolean) {
  const socket = net.connect(address);
  socket.on("error", () => {});
  const frames: { type: number; payload: Uint8Array }[] = [];
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  if (read) {
    const decoder = new FrameDecoder({
      maxPayloadBytes: 4 * MiB,
      onFrame: (type, payload) => frames.push({ type, payload: payload.slice() }),
    });
    socket.on("data", (d: Buffer) => decoder.push(d));
  }
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.write(HELLO);
  return { socket, frames, closed };
}

async function until(what: string, predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function healthyEcho(address: string, size = 1024): Promise<void> {
  const conn = await createUdsTransport({ address }).connect();
  const client = conn.client(Echo, { codec: bytesCodec });
  const msg = new Uint8Array(size).fill(7);
  assert.deepEqual(new Uint8Array(await client.Echo(msg, { timeoutMs: 10_000 })), msg);
  await conn.close();
}

/**
 * The server's memory once `freed` holds, or after 10 s: it frees a connection's buffers when it
 * has seen the close, which on a loaded machine can take longer than any fixed pause.
 */
async function memoryOnceFreed(
  server: Server,
  freed: (m: NodeJS.MemoryUsage) => boolean,
): Promise<NodeJS.MemoryUsage> {
  const deadline = Date.now() + 10_000;
  let m = await server.mem();
  while (!freed(m) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    m = await server.mem();
  }
  return m;
}

const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`;

describe("uds server: one hostile peer (issue 10 items 4–6)", () => {
  const tmp = tempDir();
  after(() => tmp.cleanup());

  it("a client pipelining 20,000 16 KiB echoes without reading is pushed back; memory stays bounded", async (t) => {
    const server = await startServer(tmp.path("no-read.sock"), {});
    try {
      await healthyEcho(server.address);
      const before = await server.mem();
      const bad = await rawPeer(server.address, false);
      const message = new Uint8Array(16 * 1024).fill(1);
      let written = 0;
      let stalled = false;
      for (let id = 1; id <= 20_000; id++) {
        const req = encodeRequest(id, END_STREAM, 0, ECHO_PATH, undefined, message);
        written++;
        if (bad.socket.write(encodeFrame(FrameType.Request, req))) continue;
        const drained = await Promise.race([
          new Promise<boolean>((r) => bad.socket.once("drain", () => r(true))),
          new Promise<boolean>((r) => setTimeout(() => r(false), 1000)),
        ]);
        if (!drained) {
          stalled = true;
          break;
        }
      }
      // The server stopped reading: the attacker's writes stall long before 20,000 (320 MiB).
      assert.ok(stalled, `all ${written} requests were taken`);
      const during = await server.mem();
      await healthyEcho(server.address, 16 * 1024);
      bad.socket.destroy();
      await bad.closed;
      const afterwards = await memoryOnceFreed(
        server,
        (m) => m.arrayBuffers - before.arrayBuffers < 4 * MiB,
      );
      t.diagnostic(
        `requests written before the stall: ${written}; server rss ${mib(before.rss)} → ${mib(during.rss)} → ${mib(afterwards.rss)}, arrayBuffers ${mib(before.arrayBuffers)} → ${mib(during.arrayBuffers)} → ${mib(afterwards.arrayBuffers)}`,
      );
      assert.ok(during.arrayBuffers - before.arrayBuffers < 32 * MiB, "arrayBuffers bounded");
      assert.ok(during.rss - before.rss < 64 * MiB, "rss bounded");
      assert.ok(afterwards.arrayBuffers - before.arrayBuffers < 4 * MiB, "buffers freed");
      await healthyEcho(server.address);
    } finally {
      await server.stop();
    }
  });

  it("calls per connection: beyond maxConcurrentCalls RESOURCE_EXHAUSTED; 100,000 open calls torn down without blocking", async (t) => {
    const max = 100_000;
    const server = await startServer(tmp.path("calls.sock"), { maxConcurrentCalls: max });
    try {
      const before = await server.mem();
      const bad = await rawPeer(server.address, true);
      // REQUESTs without END_STREAM and without a message: each call stays open, waiting.
      const extra = 20;
      const batch: Uint8Array[] = [];
      for (let id = 1; id <= max + extra; id++) {
        batch.push(
          encodeFrame(FrameType.Request, encodeRequest(id, 0, 0, ECHO_PATH, undefined, undefined)),
        );
        if (batch.length === 1000) bad.socket.write(Buffer.concat(batch.splice(0)));
      }
      bad.socket.write(Buffer.concat(batch));
      await until(
        "the STATUS answers of the calls past the limit",
        () => bad.frames.length >= extra,
      );
      const statuses = bad.frames
        .filter((f) => f.type === FrameType.Status)
        .map((f) => decodeStatus(f.payload));
      assert.deepEqual(
        statuses.map((s) => [s.callId, s.code]),
        Array.from({ length: extra }, (_, i) => [max + 1 + i, Code.ResourceExhausted]),
      );
      assert.equal(bad.socket.destroyed, false, "the connection stays up");
      const open = await server.mem();
      await healthyEcho(server.address);

      await server.ask("eld-start");
      const t0 = performance.now();
      bad.socket.destroy();
      await bad.closed;
      await healthyEcho(server.address);
      const echoMs = performance.now() - t0;
      await new Promise((r) => setTimeout(r, 100));
      const eld = await server.ask<{ maxMs: number; meanMs: number }>("eld-stop");
      const afterwards = await memoryOnceFreed(
        server,
        (m) => m.heapUsed - before.heapUsed < 8 * MiB,
      );
      t.diagnostic(
        `server heapUsed ${mib(before.heapUsed)} → ${mib(open.heapUsed)} with ${max} open calls → ${mib(afterwards.heapUsed)} after the close; longest event-loop stall during teardown ${eld.maxMs.toFixed(1)} ms; healthy echo right after the close ${echoMs.toFixed(1)} ms`,
      );
      assert.ok(eld.maxMs < 1000, `event loop blocked ${eld.maxMs} ms tearing down ${max} calls`);
      assert.ok(afterwards.heapUsed - before.heapUsed < 8 * MiB, "calls freed");
    } finally {
      await server.stop();
    }
  });

  it("the default maxConcurrentCalls (4096) applies", async () => {
    const server = await startServer(tmp.path("default.sock"), {});
    try {
      const bad = await rawPeer(server.address, true);
      const frames: Uint8Array[] = [];
      for (let id = 1; id <= 4097; id++) {
        frames.push(
          encodeFrame(FrameType.Request, encodeRequest(id, 0, 0, ECHO_PATH, undefined, undefined)),
        );
      }
      bad.socket.write(Buffer.concat(frames));
      const status = () => bad.frames.find((f) => f.type === FrameType.Status);
      await until("a STATUS", () => status() !== undefined);
      const st = decodeStatus((status() as { payload: Uint8Array }).payload);
      assert.deepEqual([st.callId, st.code], [4097, Code.ResourceExhausted]);
      bad.socket.destroy();
      await bad.closed;
    } finally {
      await server.stop();
    }
  });

  it("idleTimeoutMs closes connections without calls or frames; one with an open call stays", async () => {
    const server = await startServer(tmp.path("idle.sock"), { idleTimeoutMs: 300 });
    try {
      const silent = await rawPeer(server.address, true);
      const busy = await rawPeer(server.address, true);
      busy.socket.write(
        encodeFrame(FrameType.Request, encodeRequest(1, 0, 0, ECHO_PATH, undefined, undefined)),
      );
      const conn = await createUdsTransport({ address: server.address }).connect();
      const client = conn.client(Echo, { codec: bytesCodec });
      assert.deepEqual([...(await client.Echo(new Uint8Array([9])))], [9]);
      let silentClosed = false;
      void silent.closed.then(() => {
        silentClosed = true;
      });
      let connClosed = false;
      void conn.closed.then(() => {
        connClosed = true;
      });
      await until("the idle connections to be closed", () => silentClosed && connClosed, 5000);
      assert.equal(busy.socket.destroyed, false, "the connection with an open call stays");
      busy.socket.destroy();
      await busy.closed;
    } finally {
      await server.stop();
    }
  });

  it("300 connections announcing a 4 MiB frame and sending 1 byte: little memory, timed out; maxConnections", async (t) => {
    const n = 300;
    const server = await startServer(tmp.path("partial.sock"), {
      frameTimeoutMs: 1500,
      maxConnections: n + 1,
    });
    try {
      await healthyEcho(server.address);
      const before = await server.mem();
      const header = Buffer.from([0x00, 0x40, 0x00, 0x00, FrameType.Message, 0x00]);
      const peers = await Promise.all(
        Array.from({ length: n }, () => rawPeer(server.address, true)),
      );
      for (const p of peers) p.socket.write(header);
      // Every peer got the server's HELLO, so the server has read its partial frame too.
      await until("every HELLO answered", () => peers.every((p) => p.frames.length >= 1));
      await new Promise((r) => setTimeout(r, 100));
      const during = await server.mem();

      // A healthy client is served; one connection past maxConnections is refused.
      const conn = await createUdsTransport({ address: server.address }).connect();
      const client = conn.client(Echo, { codec: bytesCodec });
      assert.deepEqual([...(await client.Echo(new Uint8Array([1, 2, 3])))], [1, 2, 3]);
      await assert.rejects(createUdsTransport({ address: server.address }).connect(), (err) => {
        assert.equal((err as NearwireError).code, Code.ResourceExhausted);
        return true;
      });

      // The stalled frames time out: GOAWAY DEADLINE_EXCEEDED, connection closed.
      let closedCount = 0;
      for (const p of peers) void p.closed.then(() => closedCount++);
      await until("the server to close every stalled connection", () => closedCount === n);
      for (const p of peers) {
        const goAway = p.frames.find((f) => f.type === FrameType.GoAway);
        assert.ok(goAway !== undefined, "no GOAWAY");
        assert.equal(decodeGoAway(goAway.payload).code, Code.DeadlineExceeded);
      }
      // The healthy connection, idle but not inside a frame, is still open and served.
      assert.deepEqual([...(await client.Echo(new Uint8Array([4])))], [4]);
      await conn.close();
      const afterwards = await memoryOnceFreed(
        server,
        (m) => m.arrayBuffers - before.arrayBuffers < 4 * MiB,
      );
      t.diagnostic(
        `server rss ${mib(before.rss)} → ${mib(during.rss)} with ${n} stalled 4 MiB frames → ${mib(afterwards.rss)}; arrayBuffers ${mib(before.arrayBuffers)} → ${mib(during.arrayBuffers)} → ${mib(afterwards.arrayBuffers)}`,
      );
      assert.ok(
        during.arrayBuffers - before.arrayBuffers < 8 * MiB,
        "no buffer per declared length",
      );
      assert.ok(during.rss - before.rss < 64 * MiB, "rss bounded");
      assert.ok(afterwards.arrayBuffers - before.arrayBuffers < 4 * MiB, "buffers freed");
      await healthyEcho(server.address);
    } finally {
      await server.stop();
    }
  });
});
