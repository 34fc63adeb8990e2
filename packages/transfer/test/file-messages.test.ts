import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Code, NearwireError } from "@nearwire/core";
import { crc32c } from "@nearwire/frame";
import { FileMessages } from "../src/client/file-messages.js";
import { READ_BLOCK_BYTES } from "../src/io-buffers.js";
import type { UploadChunk } from "../src/service.js";
import { tmpDir } from "./support/rig.js";

const KiB = 1024;
const BLOCK = READ_BLOCK_BYTES;

/** `n` bytes counting up (mod 251), so a byte from another place or another read shows. */
function bytes(n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 7 + (i >> 12)) % 251;
  return b;
}

/** Lets every file read in flight complete (they are callbacks of the thread pool). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 1));
}

interface Run {
  messages: { m: UploadChunk; data: Uint8Array }[];
  progress: number;
  total: number;
}

/**
 * Every message of an upload of `path` from `resumeAt`; each message's bytes are checked
 * against the file after the reads behind it had time to complete, so a block read into
 * again while its chunk was still out would show.
 */
async function upload(path: string, chunkBytes: number, resumeAt: number): Promise<Run> {
  const file = readFileSync(path);
  let progress = -1;
  const sent = { totalBytes: -1 };
  const it = new FileMessages({
    path,
    name: "n",
    sizeBytes: file.byteLength,
    resumeAt,
    chunkBytes,
    hash: createHash("sha256"),
    progress: (p) => {
      progress = p;
    },
    sent,
  });
  const messages: Run["messages"] = [];
  for (;;) {
    const r = await it.next();
    if (r.done) break;
    await settle();
    const m = r.value;
    const at = m.offsetBytes;
    const view = Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength);
    assert.ok(view.equals(file.subarray(at, at + m.data.byteLength)), `bytes at ${at}`);
    messages.push({ m, data: m.data.slice() });
  }
  return { messages, progress, total: sent.totalBytes };
}

describe("file upload messages (blocks of whole chunks)", () => {
  const { dir, cleanup } = tmpDir("nwt-fm-");
  after(cleanup);

  const sizes = [0, 1, 64 * KiB - 1, 64 * KiB, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 12_345];
  // Chunks that divide a block, that do not, that fill one, and one larger than a pooled buffer.
  const chunkSizes = [64 * KiB, 100_000, 300 * KiB, 1024 * KiB];

  it("cuts every size into aligned chunks from the resume offset, the last with the SHA-256", async () => {
    for (const size of sizes) {
      const path = join(dir, `f${size}.bin`);
      const content = bytes(size);
      writeFileSync(path, content);
      const digest = createHash("sha256").update(content).digest();
      for (const chunkBytes of chunkSizes) {
        for (const resumeAt of new Set([0, Math.min(size, 70_000), Math.min(size, BLOCK), size])) {
          const what = `size ${size}, chunk ${chunkBytes}, resume at ${resumeAt}`;
          const { messages, progress, total } = await upload(path, chunkBytes, resumeAt);
          assert.ok(messages.length >= 1, what);
          let at = resumeAt;
          messages.forEach(({ m, data }, i) => {
            const isLast = i === messages.length - 1;
            assert.equal(m.offsetBytes, at, `${what}: message ${i} offset`);
            assert.equal(m.last, isLast, `${what}: message ${i} last`);
            assert.equal(m.crc32c, crc32c(data), `${what}: message ${i} crc32c`);
            assert.equal(m.name, i === 0 ? "n" : "", what);
            assert.equal(m.sizeBytes, i === 0 ? size : -1, what);
            const end = at + data.byteLength;
            // A chunk ends on a multiple of chunkBytes, or at the end of the file.
            if (end < size)
              assert.equal(end % chunkBytes, 0, `${what}: message ${i} ends at ${end}`);
            assert.ok(data.byteLength <= chunkBytes, what);
            assert.ok(
              data.byteLength > 0 || (isLast && end === size),
              `${what}: empty message ${i}`,
            );
            if (isLast) assert.deepEqual(Buffer.from(m.sha256), digest, `${what}: SHA-256`);
            else assert.equal(m.sha256.byteLength, 0, what);
            at = end;
          });
          assert.equal(at, size, `${what}: every byte from the resume offset once`);
          assert.equal(progress, size, `${what}: progress`);
          assert.equal(total, size, `${what}: sent.totalBytes`);
        }
      }
    }
  });

  it("a source shorter than the confirmed offset fails with FAILED_PRECONDITION", async () => {
    const path = join(dir, "short.bin");
    writeFileSync(path, bytes(BLOCK + 10));
    await assert.rejects(upload(path, 64 * KiB, 2 * BLOCK), (err: unknown) => {
      assert.ok(err instanceof NearwireError);
      assert.equal(err.code, Code.FailedPrecondition);
      assert.match(err.message, /source ended at 262154 B, before the confirmed 524288 B/);
      return true;
    });
    // The blocks of the failed upload went back: the next upload reads the same file whole.
    const { messages } = await upload(path, 64 * KiB, 0);
    assert.equal(messages.at(-1)?.m.offsetBytes, BLOCK);
  });

  it("closed early (return), it stops reading and the next upload is whole", async () => {
    const path = join(dir, "early.bin");
    const content = bytes(2 * BLOCK + 5);
    writeFileSync(path, content);
    const it = new FileMessages({
      path,
      name: "n",
      sizeBytes: content.byteLength,
      resumeAt: 0,
      chunkBytes: 64 * KiB,
      hash: createHash("sha256"),
      progress: () => {},
      sent: { totalBytes: -1 },
    });
    const first = await it.next();
    assert.equal(first.done, false);
    assert.deepEqual(await it.return(), { done: true, value: undefined });
    assert.deepEqual(await it.next(), { done: true, value: undefined });
    await settle();
    const { messages, total } = await upload(path, 64 * KiB, 0);
    assert.equal(total, content.byteLength);
    assert.equal(messages.length, 9);
  });
});
