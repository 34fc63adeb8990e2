import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { Code } from "@nearwire/core";
import { LENT_CHUNK_BYTES } from "../src/client/lent-chunks.js";
import type { TransferClient } from "../src/index.js";
import { type ProcessRig, processRig, randomFile, sha256 } from "./support/rig.js";

const CHUNK = 64 * 1024;
const SIZE = 5 * 1024 * 1024 + 777;

/**
 * `lendChunks`: a download into a Writable from reused buffers, the server in another process
 * over uds. The sinks here look at a chunk only when they call back, late: a buffer reused
 * before its callback would show up as a wrong SHA-256.
 */
describe("download into a Writable with lendChunks (uds, server process)", () => {
  let rig: ProcessRig;
  let client: TransferClient;
  let sha: string;

  before(async () => {
    rig = await processRig(CHUNK);
    client = rig.client;
    const src = join(rig.dir, "src.bin");
    sha = randomFile(src, SIZE);
    await client.upload(src, "f.bin");
  });
  after(() => rig.close());

  /** A sink that hashes each chunk when it calls back, `delay` later; counts what it holds. */
  function lateSink(delay: (i: number) => number, failAt = -1) {
    const hash = createHash("sha256");
    const buffers = new Set<ArrayBufferLike>();
    let held = 0;
    let maxHeld = 0;
    let n = 0;
    const sink = new Writable({
      highWaterMark: 16 * 1024 * 1024, // the client's pool, not the stream, has to bound it
      write(chunk: Buffer, _enc, cb) {
        const i = n++;
        buffers.add(chunk.buffer);
        held += chunk.byteLength;
        maxHeld = Math.max(maxHeld, held);
        setTimeout(() => {
          held -= chunk.byteLength;
          if (i === failAt) {
            cb(new Error("sink refused the chunk"));
            return;
          }
          hash.update(chunk);
          cb();
        }, delay(i));
      },
    });
    return {
      sink,
      digest: () => hash.digest("hex"),
      stats: () => ({ buffers: buffers.size, maxHeld, chunks: n }),
    };
  }

  it("delivers the file intact to a sink that calls back late, from a few buffers", async () => {
    const s = lateSink((i) => (i % 7 === 0 ? 3 : 0));
    const got = await client.download("f.bin", s.sink, { lendChunks: true });
    assert.equal(got.sha256, sha);
    assert.equal(got.sizeBytes, SIZE);
    // Every chunk was hashed when its callback ran: the download ended after the last one.
    assert.equal(s.digest(), sha);
    const st = s.stats();
    assert.equal(st.chunks, Math.ceil(SIZE / CHUNK));
    assert.ok(st.maxHeld <= LENT_CHUNK_BYTES, `held at once: ${JSON.stringify(st)}`);
    assert.ok(st.buffers <= LENT_CHUNK_BYTES / CHUNK + 1, `buffers: ${JSON.stringify(st)}`);
  });

  it("keeps the Writable's own chunks without the option", async () => {
    const kept: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        kept.push(chunk); // looked at only after the download
        cb();
      },
    });
    const got = await client.download("f.bin", sink);
    assert.equal(got.sha256, sha);
    assert.equal(createHash("sha256").update(Buffer.concat(kept)).digest("hex"), sha);
  });

  it("lends by default to a file stream, not when told not to", async () => {
    for (const lendChunks of [undefined, false]) {
      const path = join(rig.dir, `ws-${String(lendChunks)}.bin`);
      const ws = createWriteStream(path);
      const buffers = new Set<ArrayBufferLike>();
      const write = ws._write.bind(ws);
      const writev = ws._writev?.bind(ws);
      ws._write = (chunk: Buffer, enc, cb) => {
        buffers.add(chunk.buffer);
        write(chunk, enc, cb);
      };
      if (writev !== undefined)
        ws._writev = (chunks, cb) => {
          for (const c of chunks) buffers.add((c.chunk as Buffer).buffer);
          writev(chunks, cb);
        };
      const got = await client.download(
        "f.bin",
        ws,
        lendChunks === undefined ? {} : { lendChunks },
      );
      ws.end();
      await once(ws, "close");
      assert.equal(got.sha256, sha);
      assert.equal(sha256(path), sha, "the file as written");
      const chunks = Math.ceil(SIZE / CHUNK);
      if (lendChunks === undefined)
        assert.ok(buffers.size <= LENT_CHUNK_BYTES / CHUNK + 1, `buffers: ${buffers.size}`);
      else assert.ok(buffers.size >= chunks - 1, `buffers: ${buffers.size} for ${chunks} chunks`);
    }
  });

  it("refuses lendChunks for a PassThrough, before any call; the connection still serves", async () => {
    const through = new PassThrough();
    const kept: Buffer[] = [];
    through.on("data", (c: Buffer) => kept.push(c));
    await assert.rejects(client.download("f.bin", through, { lendChunks: true }), {
      code: Code.InvalidArgument,
      message: /PassThrough keeps the chunks.*leave lendChunks off/,
    });
    assert.equal(kept.length, 0, "nothing was written to it");
    const s = lateSink(() => 0);
    assert.equal((await client.download("f.bin", s.sink, { lendChunks: true })).sha256, sha);
  });

  it("fails with the sink's error, and the connection still serves", async () => {
    const s = lateSink(() => 1, 20);
    s.sink.on("error", () => {}); // the download reports it
    await assert.rejects(client.download("f.bin", s.sink, { lendChunks: true }), {
      message: /sink refused the chunk/,
    });
    const again = lateSink(() => 0);
    const got = await client.download("f.bin", again.sink, { lendChunks: true });
    assert.equal(got.sha256, sha);
    assert.equal(again.digest(), sha);
  });
});
