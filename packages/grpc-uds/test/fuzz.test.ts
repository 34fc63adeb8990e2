import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  byteStreamFuzz,
  fuzzRun,
  processRssBytes,
  type Rng,
  writeInRandomChunks,
} from "@nearwire/conformance";
import { jsonCodec } from "@nearwire/core";
import { createGrpcTransport } from "../src/index.js";
import { type ServerChild, startServer, tempDir } from "./support/servers.js";
import { testService } from "./support/test-service.js";

// Seeded fuzzing of a real grpc-uds server process (issue 10 item 10): the HTTP/2 client
// preface, then random bytes or random HTTP/2 frames (random type, flags, stream id, length),
// split at random boundaries. After each batch a new client's unary call must succeed; at the
// end the server is alive, its RSS bounded and no socket file is left.
// `NEARWIRE_FUZZ_ITERATIONS` (default 400) and `NEARWIRE_FUZZ_SEED` (default 0x6e77) choose the
// run. The corpus (test/fuzz-corpus/grpc-uds.json) is replayed first; a failing input is
// appended to it.
const { iterations: ITERATIONS, seed: SEED } = fuzzRun(400);
const BATCH = 16;
const CORPUS = fileURLToPath(new URL("./fuzz-corpus/grpc-uds.json", import.meta.url));
const MiB = 1024 * 1024;
const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** An HTTP/2 frame: 24-bit length (maybe a lie), type, flags, stream id, payload. */
function h2frame(rng: Rng): Buffer {
  const payload = rng.bytes(rng.int(4) === 0 ? 0 : rng.int(128));
  const head = Buffer.alloc(9);
  const len = rng.int(4) === 0 ? rng.u32() & 0xffffff : payload.length;
  head.writeUIntBE(len, 0, 3);
  head[3] = rng.int(3) === 0 ? rng.int(256) : rng.int(10);
  head[4] = rng.int(256);
  head.writeUInt32BE([0, 1, 3, 0x7fffffff, rng.u32()][rng.int(5)] as number, 5);
  return Buffer.concat([head, payload]);
}

function randomInput(rng: Rng): { kind: string; bytes: Buffer } {
  const settings = Buffer.from("000000040000000000", "hex");
  if (rng.int(3) === 0)
    return { kind: "bytes", bytes: Buffer.concat([PREFACE, rng.bytes(rng.int(512))]) };
  const parts: Buffer[] = [PREFACE];
  if (rng.int(2) === 0) parts.push(settings);
  const n = 1 + rng.int(6);
  for (let i = 0; i < n; i++) parts.push(h2frame(rng));
  return { kind: "frames", bytes: Buffer.concat(parts) };
}

describe("grpc-uds fuzz: random bytes after the HTTP/2 preface", () => {
  const tmp = tempDir();
  const path = `${tmp.dir}/fuzz.sock`;
  let server: ServerChild;
  before(async () => {
    server = await startServer(`unix:${path}`);
  });
  after(async () => {
    await server?.stop();
    tmp.cleanup();
  });

  const pid = (): number => server.child.pid as number;
  const rss = (): number => processRssBytes(pid());

  let closedByServer = 0;
  let leftOpen = 0;
  /**
   * Writes `bytes` in random chunks and half-closes. An HTTP/2 server need not close a
   * half-closed connection (Node's http2 keeps the session), so after 100 ms we close it; the
   * healthy call after each batch is what shows the server still serves.
   */
  async function send(bytes: Buffer, rng: Rng): Promise<void> {
    const sock = net.connect(path);
    sock.on("data", () => {});
    sock.on("error", () => {});
    const closed = new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), 100);
      sock.once("close", () => {
        clearTimeout(t);
        resolve(true);
      });
    });
    await new Promise<void>((r) => sock.once("connect", () => r()));
    await writeInRandomChunks(sock, bytes, rng);
    sock.end();
    if (await closed) closedByServer++;
    else leftOpen++;
    sock.destroy();
  }

  async function healthy(what: string): Promise<void> {
    assert.equal(server.child.exitCode, null, `server exited after ${what}`);
    assert.equal(server.child.signalCode, null, `server killed after ${what}`);
    const conn = await createGrpcTransport({ address: server.address }).connect();
    try {
      const c = conn.client(testService, { codec: jsonCodec });
      assert.deepEqual(await c.echo({ id: 1, text: "healthy" }), { id: 1, text: "healthy" });
    } finally {
      await conn.close();
    }
  }

  it("replays the corpus, then random inputs; the server keeps serving, RSS bounded, nothing left", async (t) => {
    await healthy("start");
    const run = await byteStreamFuzz({
      seed: SEED,
      iterations: ITERATIONS,
      batchSize: BATCH,
      corpus: CORPUS,
      input: randomInput,
      send,
      healthy,
      rss,
    });
    const { rssStartBytes: rssStart, rssMaxBytes: rssMax } = run;
    await healthy("the end");
    t.diagnostic(
      `seed ${SEED}: ${run.corpusCases} corpus cases + ${ITERATIONS} random inputs in ${run.ms} ms (${closedByServer} connections closed by the server, ${leftOpen} left open and closed by us); server RSS ${(rssStart / MiB).toFixed(1)} MiB at start, max ${(rssMax / MiB).toFixed(1)}`,
    );
    assert.ok(
      rssMax - rssStart < 64 * MiB,
      `server RSS grew ${((rssMax - rssStart) / MiB).toFixed(1)} MiB`,
    );
    await server.stop();
    assert.equal(server.child.signalCode === "SIGKILL", false, "server needed SIGKILL");
    assert.deepEqual(readdirSync(tmp.dir), [], "socket files left behind");
  });
});
