import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { creditWindowCheck } from "@nearwire/conformance";
import { Code, NearwireError } from "@nearwire/core";
import { createUdsTransport } from "../src/index.js";
import { Big, bigCodec } from "./fixtures/big-stream-server.js";
import { tempDir } from "./support/channels.js";

// PROTOCOL.md §5.4 "Credit by bytes": a server in another process streams 1 MiB messages to a
// client that takes one and then stops reading. When both sides announced CREDIT_BYTES (the
// default, with BATCH) the server holds its unacknowledged bytes to 2 MiB: 3 messages go out.
// With `batches: false` the client's HELLO has no features field, so the server may not wait on
// bytes and the stream's 32 initial credits (32 MiB) go out, plus the one returned for the
// message taken. Nothing is lost either way: every message arrives once the client reads on.
// A receiver's own byte window (CREDIT_WINDOW, `creditWindowBytes`) holds a stream of 64 KiB
// messages to that window, whichever side receives, where the default holds 32 (2 MiB).

const tmp = tempDir();
after(() => tmp.cleanup());
const fixture = fileURLToPath(new URL("./fixtures/big-stream-server.ts", import.meta.url));
const MiB = 1024 * 1024;
const KiB = 1024;
const factoryModule = new URL("./fixtures/uds-factory.js", import.meta.url).href;

async function sentWhileClientWaits(batches: boolean, name: string): Promise<number> {
  const address = tmp.path(name);
  const child = spawn(process.execPath, ["--import", "tsx", fixture, address, "{}"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let yielded = 0;
  let lastLineAt = Date.now();
  const ready = new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server exited ${code}`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      lastLineAt = Date.now();
      if (line.startsWith("ready ")) resolve();
      else if (line.startsWith("yielded ")) yielded = Number(line.slice(8));
    });
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await ready;
    const conn = await createUdsTransport({ address, batches }).connect();
    try {
      const stream = conn.client(Big, { codec: bigCodec }).Stream({ count: 40, size: MiB });
      const it = stream[Symbol.asyncIterator]();
      const first = await it.next();
      assert.equal(first.value?.byteLength, MiB);
      // Wait until the server has stopped sending (no line for 300 ms; at most 10 s).
      const deadline = Date.now() + 10_000;
      while (Date.now() - lastLineAt < 300 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      const sent = yielded;
      // The rest arrives, intact and in order, once the client reads on.
      let n = 1;
      for (let r = await it.next(); r.done !== true; r = await it.next()) {
        n++;
        assert.equal(r.value.byteLength, MiB);
        assert.equal(r.value[0], n & 0xff);
      }
      assert.equal(n, 40);
      return sent;
    } finally {
      await conn.close();
    }
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

describe("credit by bytes (CREDIT_BYTES) over uds, server in another process", () => {
  it("announced: a stream of 1 MiB messages holds 2 MiB unacknowledged, not 32 messages", async (t) => {
    const sent = await sentWhileClientWaits(true, "bytes.sock");
    t.diagnostic(`${sent} messages sent while the client waited`);
    assert.ok(sent >= 2 && sent <= 4, `${sent} messages sent while the client waited`);
  });

  it("not announced (batches: false, no features field): the 32 initial credits, as before", async (t) => {
    const sent = await sentWhileClientWaits(false, "count.sock");
    t.diagnostic(`${sent} messages sent while the client waited`);
    assert.ok(sent >= 32, `${sent} messages sent while the client waited`);
  });

  it("a receiver's window of 256 KiB: a stream of 64 KiB messages holds 4 of them, not 32", async (t) => {
    for (const receiver of ["client", "server"] as const) {
      const check = (creditWindowBytes?: number) =>
        creditWindowCheck({
          factoryModule,
          address: tmp.path(`window-${receiver}-${creditWindowBytes ?? "none"}.sock`),
          receiver,
          ...(creditWindowBytes === undefined ? {} : { creditWindowBytes }),
        });
      const held = await check(256 * KiB);
      const plain = await check();
      t.diagnostic(`${receiver} receives: ${held} messages held with the window, ${plain} without`);
      assert.ok(held >= 4 && held <= 6, `${receiver} receives, window: ${held} messages held`);
      assert.ok(plain >= 32 && plain <= 40, `${receiver} receives, no window: ${plain} held`);
    }
  });

  it("a creditWindowBytes option outside 64 KiB … 2 MiB is INVALID_ARGUMENT at creation", () => {
    for (const bad of [1024, 4 * MiB, 100_000.5]) {
      assert.throws(
        () => createUdsTransport({ address: tmp.path("bad.sock"), creditWindowBytes: bad }),
        (e: unknown) => e instanceof NearwireError && e.code === Code.InvalidArgument,
      );
    }
  });
});
