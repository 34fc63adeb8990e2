import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import net from "node:net";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { adoptAccepted, type ReadSink, SocketReader } from "../src/index.js";
import { tempDir } from "./support/sockets.js";

const tmp = tempDir();
after(() => assert.deepEqual(tmp.cleanup(), [], "files left in the test directory"));

/**
 * A peer in another process that connects to `path`, writes `bytes` (given on its stdin) at
 * once and holds the connection until the server closes it.
 */
function writerProcess(path: string, bytes: Buffer) {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `const parts = [];
process.stdin.on("data", (d) => parts.push(d));
process.stdin.on("end", () => {
  const s = require("node:net").connect(process.argv[1], () => s.write(Buffer.concat(parts)));
  s.on("error", () => {});
  s.resume();
});`,
      path,
    ],
    { stdio: ["pipe", "ignore", "inherit"] },
  );
  child.stdin.end(bytes);
  return new Promise<void>((resolve) => child.once("exit", () => resolve()));
}

/** Collects what a sink attached `delayMs` after the adoption reads, until `total` bytes came. */
function collect(reader: SocketReader, total: number, delayMs: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let got = 0;
    const sink: ReadSink = {
      readTarget: () => undefined,
      readSmall: () => false,
      onRead: (buf, n) => {
        parts.push(Buffer.from(buf.subarray(0, n))); // the shared buffer: copied
        got += n;
        if (got >= total) resolve(Buffer.concat(parts));
        return true;
      },
    };
    setTimeout(() => reader.attach(sink), delayMs);
  });
}

describe("SocketReader on an adopted socket", () => {
  for (const [what, size] of [
    ["a few bytes", 11],
    ["past the 1 MiB it keeps (the socket pauses, then resumes)", 3 * 1024 * 1024 + 5],
  ] as const) {
    it(`keeps what arrives before its sink is attached: ${what}`, { timeout: 10_000 }, async () => {
      const path = join(tmp.dir, `early-${size}.sock`);
      const data = randomBytes(size);
      let received!: Promise<Buffer>;
      let adopted: net.Socket | undefined;
      const accepted = new Promise<void>((resolve) => {
        const server = net.createServer((socket) => {
          const reader = new SocketReader();
          adopted = adoptAccepted(socket, reader);
          // Attached late, as after an async peer check: the peer has written everything.
          received = collect(reader, size, 300);
          server.close();
          resolve();
        });
        server.listen(path);
      });
      const peer = writerProcess(path, data);
      await accepted;
      assert.ok(adopted, "the accepted socket was adopted");
      const got = await received;
      assert.equal(got.byteLength, size);
      assert.ok(got.equals(data), "every byte, in order");
      adopted.destroy();
      await peer;
    });
  }
});
