import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
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
// messages to that window, in both directions, where the default holds 32 of them (2 MiB).

const tmp = tempDir();
after(() => tmp.cleanup());
const fixture = fileURLToPath(new URL("./fixtures/big-stream-server.ts", import.meta.url));
const MiB = 1024 * 1024;

const KiB = 1024;

/** The fixture server in a child process, with `options` (JSON) for its transport. */
function startServer(name: string, options: object = {}) {
  const address = tmp.path(name);
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fixture, address, JSON.stringify(options)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return { address, child };
}

/** Waits until `count()` has not changed for 300 ms (at most 10 s), and returns it. */
async function whenSteady(count: () => number): Promise<number> {
  const deadline = Date.now() + 10_000;
  let last = count();
  let since = Date.now();
  while (Date.now() - since < 300 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    if (count() !== last) {
      last = count();
      since = Date.now();
    }
  }
  return last;
}

async function sentWhileClientWaits(
  batches: boolean,
  name: string,
  size = MiB,
  creditWindowBytes?: number,
): Promise<number> {
  const { address, child } = startServer(name);
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
    const conn = await createUdsTransport({
      address,
      batches,
      ...(creditWindowBytes === undefined ? {} : { creditWindowBytes }),
    }).connect();
    try {
      const stream = conn.client(Big, { codec: bigCodec }).Stream({ count: 40, size });
      const it = stream[Symbol.asyncIterator]();
      const first = await it.next();
      assert.equal(first.value?.byteLength, size);
      // Wait until the server has stopped sending (no line for 300 ms; at most 10 s).
      const deadline = Date.now() + 10_000;
      while (Date.now() - lastLineAt < 300 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      const sent = yielded;
      // The rest arrives, intact and in order, once the client reads on.
      let n = 1;
      for (let r = await it.next(); r.done !== true; r = await it.next()) {
        n++;
        assert.equal(r.value.byteLength, size);
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

  it("a client's window of 256 KiB: a stream of 64 KiB messages holds 4 of them, not 32", async (t) => {
    const held = await sentWhileClientWaits(true, "window.sock", 64 * KiB, 256 * KiB);
    t.diagnostic(`${held} messages sent while the client waited (window 256 KiB)`);
    assert.ok(held >= 4 && held <= 6, `${held} messages sent while the client waited`);
    const plain = await sentWhileClientWaits(true, "nowindow.sock", 64 * KiB);
    t.diagnostic(`${plain} messages sent while the client waited (no window)`);
    assert.ok(plain >= 32, `${plain} messages sent while the client waited`);
  });

  it("a server's window of 256 KiB: an upload of 64 KiB messages holds 4 of them, not 32", async (t) => {
    for (const [window, low, high] of [
      [256 * KiB, 4, 6],
      [undefined, 32, 40],
    ] as const) {
      const { address, child } = startServer(
        `sink-${window ?? "none"}.sock`,
        window === undefined ? {} : { creditWindowBytes: window },
      );
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      try {
        await new Promise<void>((resolve, reject) => {
          child.once("exit", (code) => reject(new Error(`server exited ${code}`)));
          createInterface({ input: child.stdout }).on("line", (line) => {
            if (line.startsWith("ready ")) resolve();
          });
        });
        await using conn = await createUdsTransport({ address }).connect();
        const big = conn.client(Big, { codec: bigCodec });
        let pulled = 0;
        async function* source() {
          for (let i = 1; i <= 60; i++) {
            pulled = i;
            yield new Uint8Array(64 * KiB).fill(i & 0xff);
          }
        }
        const sum = big.Sink(source());
        // Pulled: the messages sent, and the next one, waiting for credit.
        const held = (await whenSteady(() => pulled)) - 1;
        t.diagnostic(`window ${window ?? "none"}: ${held} messages sent while the server waited`);
        assert.ok(held >= low && held <= high, `${held} messages sent while the server waited`);
        await big.Release({ count: 0, size: 0 });
        assert.deepEqual(await sum, { count: 60, size: 60 * 64 * KiB });
      } finally {
        child.kill("SIGTERM");
        await exited;
      }
    }
  });
});
