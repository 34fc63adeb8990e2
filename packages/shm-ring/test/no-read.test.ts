import assert from "node:assert/strict";
import { fork } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  Code,
  createCodec,
  defineService,
  messageType,
  NearwireError,
  unary,
} from "@nearwire/core";
import { encodeRequest, FrameType } from "@nearwire/core/protocol";
import { createShmRingChannelProvider, createShmRingTransport } from "../src/index.js";
import { leakCheckedTempDir } from "./support/leak-checks.js";

// Issue 10 item 4 over shm-ring: a client that pipelines unary echoes and never reads its
// replies. The server's send ring fills, its queue holds what one read pass delivered, and it
// stops reading: the client's ring fills too and the client is pushed back, while the server's
// memory stays bounded and another client is served.
const tmp = leakCheckedTempDir("nw-shm-noread-");
const MiB = 1024 * 1024;
const Bytes = messageType<Uint8Array>("nearwire.test.Bytes");
const Echo = defineService("nearwire.test.Echo", { Echo: unary(Bytes, Bytes) });
const bytesCodec = createCodec("bytes", {
  "nearwire.test.Bytes": {
    decodesInPlace: false,
    encode: (v) => v as Uint8Array,
    decode: (b) => b.slice(),
  },
});
const ECHO_PATH = new TextEncoder().encode("/nearwire.test.Echo/Echo");
const fixture = fileURLToPath(new URL("./fixtures/echo-mem-server.ts", import.meta.url));
const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`;

describe("shm-ring server: a client that never reads", () => {
  it("pipelined 16 KiB echoes are pushed back; server memory bounded; others served", async (t) => {
    const address = tmp.sock("no-read.sock");
    const child = fork(fixture, [address], {
      execArgv: ["--import", "tsx", "--expose-gc"],
      stdio: ["ignore", "pipe", "inherit", "ipc"],
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no ready line")), 20_000);
        child.stdout?.on("data", (d: Buffer) => {
          if (d.toString().includes("ready")) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      let next = 0;
      const mem = () =>
        new Promise<NodeJS.MemoryUsage>((resolve) => {
          const id = next++;
          const on = (m: { id: number; reply: NodeJS.MemoryUsage }) => {
            if (m.id !== id) return;
            child.off("message", on);
            resolve(m.reply);
          };
          child.on("message", on);
          child.send({ id, cmd: "mem" });
        });
      const healthy = async () => {
        const conn = await createShmRingTransport({ address }).connect();
        const msg = new Uint8Array(16 * 1024).fill(3);
        const echo = conn.client(Echo, { codec: bytesCodec });
        assert.deepEqual(new Uint8Array(await echo.Echo(msg, { timeoutMs: 10_000 })), msg);
        await conn.close();
      };
      await healthy();
      // Never started: this channel never reads its receive ring.
      const bad = await createShmRingChannelProvider({ address }).connect();
      const before = await mem();
      const message = new Uint8Array(16 * 1024).fill(1);
      let sent = 0;
      let stalled = false;
      for (let id = 1; id <= 20_000 && !stalled; id++) {
        sent++;
        const req = encodeRequest(id, 0x01, 0, ECHO_PATH, undefined, message);
        if (bad.send(FrameType.Request, req)) continue;
        stalled = !(await Promise.race([
          bad.drained().then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), 1000)),
        ]));
      }
      assert.ok(stalled, `all ${sent} requests were taken`);
      const during = await mem();
      await healthy();
      await bad.close(new NearwireError(Code.Canceled, "test done"));
      await new Promise((r) => setTimeout(r, 300));
      const afterwards = await mem();
      t.diagnostic(
        `requests sent before the stall: ${sent}; server arrayBuffers ${mib(before.arrayBuffers)} → ${mib(during.arrayBuffers)} → ${mib(afterwards.arrayBuffers)}, rss ${mib(before.rss)} → ${mib(during.rss)} → ${mib(afterwards.rss)}`,
      );
      assert.ok(during.arrayBuffers - before.arrayBuffers < 32 * MiB, "arrayBuffers bounded");
      assert.ok(during.rss - before.rss < 64 * MiB, "rss bounded");
      await healthy();
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  });
});
