import assert from "node:assert/strict";
import {
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { Code, NearwireError } from "@nearwire/core";
import { transferCodec } from "../src/codecs/index.js";
import { FD_PATHS, openDirIn, openFileIn, openRoot, pathIn } from "../src/server/root-dir.js";
import { type MemoryRig, memoryRig, sha256, tmpDir } from "./support/rig.js";

const isSymlinkDenied = (err: unknown) =>
  err instanceof NearwireError && err.code === Code.PermissionDenied && err.reason === "symlink";

/**
 * A directory swapped for a symlink to outside the root between the check and the use: the
 * lookups open each segment by descriptor (root-dir.ts), so the use happens in the directory
 * that was checked, or the symlink is refused; nothing outside the root is read or written.
 */
describe("symlink swaps between check and use", { skip: !FD_PATHS }, () => {
  const tmp = tmpDir("nwt-race-");
  const root = join(tmp.dir, "root");
  const outside = join(tmp.dir, "outside");
  before(() => {
    mkdirSync(root);
    mkdirSync(outside);
    writeFileSync(join(outside, "f"), "outside");
  });
  after(() => tmp.cleanup());

  it("a directory opened before the swap is still the one used after it", async () => {
    mkdirSync(join(root, "d"));
    writeFileSync(join(root, "d", "f"), "inside");
    const r = await openRoot(root);
    const dir = await openDirIn(r, ["d"], "d/f"); // the check
    // The swap: d moves away, a symlink to outside takes its name.
    renameSync(join(root, "d"), join(root, "d-moved"));
    symlinkSync(outside, join(root, "d"));
    try {
      const fh = await openFileIn(dir, "f", constants.O_RDONLY, "d/f"); // the use
      assert.equal(await fh.readFile("utf8"), "inside");
      await fh.close();
      // A rename named by the descriptor lands in the checked directory, not outside.
      writeFileSync(join(root, "new"), "new");
      await rename(join(root, "new"), pathIn(dir, "g"));
      assert.equal(await readFile(join(root, "d-moved", "g"), "utf8"), "new");
      assert.equal(existsSync(join(outside, "g")), false);
      // A fresh lookup refuses the symlink.
      await assert.rejects(openDirIn(r, ["d"], "d/f"), isSymlinkDenied);
      await assert.rejects(openFileIn(r, "d", constants.O_RDONLY, "d"), isSymlinkDenied);
    } finally {
      await dir.close();
      await r.close();
    }
    assert.deepEqual(readdirSync(outside), ["f"]);
  });

  describe("through the service", () => {
    const codec = transferCodec("raw");
    let rig: MemoryRig;
    before(async () => {
      rig = await memoryRig(codec);
    });
    after(() => rig.close());

    it("an upload whose directory becomes a symlink mid-upload is refused at commit", async () => {
      mkdirSync(join(rig.root, "up"));
      const data = new Uint8Array(300_000).fill(3);
      let swapped!: () => void;
      const gate = new Promise<void>((r) => {
        swapped = r;
      });
      let sent!: () => void;
      const started = new Promise<void>((r) => {
        sent = r;
      });
      async function* source() {
        yield data.subarray(0, 131072);
        sent();
        await gate;
        yield data.subarray(131072);
      }
      const up = rig.client.upload(source(), "up/x.bin", { sizeBytes: data.length });
      await started;
      for (let i = 0; i < 200 && !(await rig.client.status("up/x.bin")).active; i++)
        await new Promise((r) => setTimeout(r, 5));
      renameSync(join(rig.root, "up"), join(rig.root, "up-moved"));
      symlinkSync(outside, join(rig.root, "up"));
      swapped();
      await assert.rejects(up, isSymlinkDenied);
      assert.deepEqual(readdirSync(outside), ["f"]);
      assert.equal(existsSync(join(rig.root, "up-moved", "x.bin")), false);
      await assert.rejects(rig.client.status("up/x.bin"), isSymlinkDenied);
      // Nothing else broke: with the directory back, the same upload commits.
      renameSync(join(rig.root, "up"), join(rig.root, "up-link"));
      renameSync(join(rig.root, "up-moved"), join(rig.root, "up"));
      const done = await rig.client.upload([data], "up/x.bin", { sizeBytes: data.length });
      assert.equal(done.sha256, sha256(data));
      assert.equal(sha256(join(rig.root, "up", "x.bin")), sha256(data));
    });

    it("an upload whose own name becomes a symlink mid-upload is refused at commit", async () => {
      const data = new Uint8Array(300_000).fill(5);
      let go!: () => void;
      const gate = new Promise<void>((r) => {
        go = r;
      });
      let sent!: () => void;
      const started = new Promise<void>((r) => {
        sent = r;
      });
      async function* source() {
        yield data.subarray(0, 131072);
        sent();
        await gate;
        yield data.subarray(131072);
      }
      const up = rig.client.upload(source(), "named.bin", { sizeBytes: data.length });
      await started;
      for (let i = 0; i < 200 && !(await rig.client.status("named.bin")).active; i++)
        await new Promise((r) => setTimeout(r, 5));
      symlinkSync(join(outside, "f"), join(rig.root, "named.bin"));
      go();
      await assert.rejects(up, isSymlinkDenied);
      assert.equal(await readFile(join(outside, "f"), "utf8"), "outside");
      assert.equal(readlinkSync(join(rig.root, "named.bin")), join(outside, "f"));
      // Nothing else broke: with the link gone, the same upload commits.
      unlinkSync(join(rig.root, "named.bin"));
      const done = await rig.client.upload([data], "named.bin", { sizeBytes: data.length });
      assert.equal(done.sha256, sha256(data));
      assert.equal(sha256(join(rig.root, "named.bin")), sha256(data));
    });

    it("downloads while a directory and a symlink swap places never read outside the root", async () => {
      // `s` flips between a real directory holding f = "inside" and a symlink to outside
      // (f = "outside"), 200 times about a millisecond apart, by atomic renames, while downloads
      // of s/f run.
      mkdirSync(join(rig.root, "s"));
      writeFileSync(join(rig.root, "s", "f"), "inside");
      symlinkSync(outside, join(rig.root, "s-link"));
      let flips = 0;
      let done = false;
      const swapper = (async () => {
        for (; flips < 200; flips++) {
          if (flips % 2 === 0) {
            renameSync(join(rig.root, "s"), join(rig.root, "s-dir"));
            renameSync(join(rig.root, "s-link"), join(rig.root, "s"));
          } else {
            renameSync(join(rig.root, "s"), join(rig.root, "s-link"));
            renameSync(join(rig.root, "s-dir"), join(rig.root, "s"));
          }
          await new Promise((r) => setTimeout(r, 1));
        }
        done = true;
      })();
      const seen = { inside: 0, denied: 0, missing: 0 };
      while (!done) {
        const chunks: Buffer[] = [];
        const sink = new Writable({
          write(c: Buffer, _e, cb) {
            chunks.push(c);
            cb();
          },
        });
        try {
          await rig.client.download("s/f", sink);
          const text = Buffer.concat(chunks).toString();
          assert.equal(text, "inside", "a download read outside the root");
          seen.inside++;
        } catch (err) {
          if (isSymlinkDenied(err)) seen.denied++;
          else if (err instanceof NearwireError && err.code === Code.NotFound) seen.missing++;
          else throw err;
        }
      }
      await swapper;
      assert.ok(seen.inside + seen.denied + seen.missing > 0);
      assert.deepEqual(readdirSync(outside), ["f"]);
    });
  });
});
