import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Code, type NearwireError } from "@nearwire/core";
import { transferCodec } from "../src/codecs/index.js";
import { createTransferHandlers, type Durability } from "../src/index.js";
import { STAGING_DIR_NAME } from "../src/limits.js";
import { readPartialState } from "../src/server/partial-state.js";
import { openPartialUpload, partialPaths } from "../src/server/partial-upload.js";
import { memoryRig, sha256, tmpDir, waitIdle } from "./support/rig.js";
import { writePartial } from "./support/write-partial.js";

const codec = transferCodec("raw");
const MiB = 1024 * 1024;
/** What the server has of the 4 MiB sent: the client holds its latest 64 KiB chunk back (it may be the last). */
const ARRIVED = 4 * MiB - 64 * 1024;

/** State files (partial upload checkpoints) in the root's staging directory. */
function stateFiles(root: string): string[] {
  try {
    return readdirSync(join(root, STAGING_DIR_NAME)).filter((f) => f.endsWith(".json"));
  } catch {
    return [];
  }
}

/**
 * Uploads `data` as a stream that stops after `stopAt` bytes until `gate` opens, then is
 * aborted: what the server holds at the pause and after the call ended.
 */
async function interrupted(durable: Durability) {
  const rig = await memoryRig(codec, { durable, syncEveryBytes: MiB });
  try {
    const data = randomBytes(8 * MiB);
    const stopAt = 4 * MiB;
    let paused!: () => void;
    const atPause = new Promise<void>((r) => {
      paused = r;
    });
    const abort = new AbortController();
    async function* source() {
      for (let at = 0; at < stopAt; at += 256 * 1024) yield data.subarray(at, at + 256 * 1024);
      paused();
      await new Promise(() => {}); // stalls until the abort closes the stream
    }
    const upload = rig.client.upload(source(), "big.bin", {
      sizeBytes: data.byteLength,
      signal: abort.signal,
      maxAttempts: 1,
    });
    await atPause;
    // Give the server time to take and write what was sent.
    for (let i = 0; i < 50 && (await rig.client.status("big.bin")).active !== true; i++)
      await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 200));
    const statesDuring = stateFiles(rig.root).length;
    abort.abort();
    await assert.rejects(upload, (err: NearwireError) => err.code === Code.Canceled);
    await waitIdle(rig, "big.bin");
    const st = await rig.client.status("big.bin");
    // The rest from a path source resumes at the confirmed offset.
    const src = join(rig.local, "big.src");
    writeFileSync(src, data);
    const done = await rig.client.upload(src, "big.bin");
    return {
      statesDuring,
      confirmedAfterAbort: st.partialBytes,
      resumedFrom: done.resumedFromBytes,
      ok: done.sha256 === sha256(data) && sha256(join(rig.root, "big.bin")) === sha256(data),
      statesAfterCommit: stateFiles(rig.root).length,
    };
  } finally {
    await rig.close();
  }
}

describe("durability option", () => {
  it('"full" (default) checkpoints while data arrives; resume continues from there', async () => {
    const r = await interrupted("full");
    assert.equal(r.statesDuring, 1, "a checkpoint was written during the upload");
    assert.equal(r.confirmedAfterAbort, ARRIVED);
    assert.equal(r.resumedFrom, ARRIVED);
    assert.ok(r.ok, "committed bytes are the file's");
    assert.equal(r.statesAfterCommit, 0);
  });

  for (const durable of ["commit", "none"] as const) {
    it(`"${durable}" writes no checkpoint while data arrives, one when the call ends`, async () => {
      const r = await interrupted(durable);
      assert.equal(r.statesDuring, 0, "no state file while the upload runs");
      assert.equal(r.confirmedAfterAbort, ARRIVED, "the ended call checkpointed what arrived");
      assert.equal(r.resumedFrom, ARRIVED);
      assert.ok(r.ok, "committed bytes are the file's");
      assert.equal(r.statesAfterCommit, 0);
    });
  }

  it("a file below the checkpoint size never gets a state file", async () => {
    const rig = await memoryRig(codec, { syncEveryBytes: 8 * MiB });
    try {
      const data = randomBytes(3 * MiB);
      let paused!: () => void;
      const atPause = new Promise<void>((r) => {
        paused = r;
      });
      let go!: () => void;
      const gate = new Promise<void>((r) => {
        go = r;
      });
      async function* source() {
        yield data.subarray(0, 2 * MiB);
        paused();
        await gate;
        yield data.subarray(2 * MiB);
      }
      const upload = rig.client.upload(source(), "small.bin", { sizeBytes: data.byteLength });
      await atPause;
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(stateFiles(rig.root), []);
      go();
      const done = await upload;
      assert.equal(done.sha256, sha256(data));
      assert.equal(sha256(join(rig.root, "small.bin")), sha256(data));
    } finally {
      await rig.close();
    }
  });

  it("an unknown durability is INVALID_ARGUMENT", () => {
    const t = tmpDir();
    try {
      assert.throws(
        () => createTransferHandlers({ root: t.dir, durable: "always" as Durability }),
        (err: NearwireError) => err.code === Code.InvalidArgument && /durable/.test(err.message),
      );
    } finally {
      t.cleanup();
    }
  });

  it("a checkpoint runs behind the writes; the next due waits for it; its failure fails a write", async () => {
    const t = tmpDir();
    try {
      const partial = await openPartialUpload({
        paths: partialPaths(t.dir, "p.bin"),
        name: "p.bin",
        sizeBytes: -1,
        offsetBytes: 0,
        syncEveryBytes: MiB,
        sync: true,
        directWrites: true,
      });
      // The disk's fdatasync, held until the test lets it finish.
      const syncs: { release(fail?: Error): void }[] = [];
      (partial.handle as { datasync: () => Promise<void> }).datasync = () =>
        new Promise<void>((resolve, reject) => {
          syncs.push({ release: (fail) => (fail === undefined ? resolve() : reject(fail)) });
        });
      const block = randomBytes(MiB / 2);
      await writePartial(partial, block);
      await writePartial(partial, block); // 1 MiB: a checkpoint starts…
      assert.equal(syncs.length, 1);
      await writePartial(partial, block); // …and the writes go on while it syncs
      assert.equal(partial.writtenBytes, 1.5 * MiB);
      assert.equal(partial.confirmedBytes, 0, "nothing confirmed before the sync is done");
      let fourth = false;
      const next = writePartial(partial, block).then(() => {
        fourth = true;
      }); // 2 MiB: the next checkpoint is due, the first still runs
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(fourth, false, "waits for the checkpoint before it");
      syncs[0]?.release();
      await next;
      assert.equal(partial.confirmedBytes, MiB, "the first checkpoint confirmed what it synced");
      assert.equal(syncs.length, 2, "the second started");
      assert.equal((await readPartialState(partial.paths.state))?.confirmedBytes, MiB);
      // The second fails (a disk error): the next write fails with it; nothing more is confirmed.
      syncs[1]?.release(Object.assign(new Error("EIO: i/o error"), { code: "EIO" }));
      await new Promise((r) => setImmediate(r));
      await assert.rejects(writePartial(partial, block), /EIO/);
      assert.equal(partial.confirmedBytes, MiB);
      await partial.close();
      assert.equal(
        sha256(readFileSync(partial.paths.part).subarray(0, 2 * MiB)),
        sha256(Buffer.concat([block, block, block, block])),
      );
    } finally {
      t.cleanup();
    }
  });
});
