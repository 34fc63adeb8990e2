import assert from "node:assert/strict";
import {
  existsSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Code, type NearwireError } from "@nearwire/core";
import { transferCodec } from "../src/codecs/index.js";
import { STAGING_DIR_NAME } from "../src/limits.js";
import { HOLD_AFTER_MS } from "../src/server/held-root.js";
import { partialPaths } from "../src/server/partial-upload.js";
import { memoryRig, randomFile, sha256 } from "./support/rig.js";

const codec = transferCodec("raw");

/** This process's descriptors open on `dir`, by number (Linux: /proc/self/fd). */
function fdsOn(dir: string): number[] {
  const real = realpathSync(dir);
  const out: number[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === real) out.push(Number(fd));
    } catch {
      // closed since the listing
    }
  }
  return out;
}

const linux = existsSync("/proc/self/fd");

describe("the served root is opened once for the calls that run", { skip: !linux }, () => {
  it("upload after upload uses one descriptor of the root and of staging; idle, none", async () => {
    const rig = await memoryRig(codec);
    try {
      const staging = join(rig.root, STAGING_DIR_NAME);
      const seen = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const src = join(rig.local, `f${i}`);
        const hex = randomFile(src, 200_000 + i);
        const up = await rig.client.upload(src, `f${i}.bin`);
        assert.equal(up.sha256, hex);
        assert.equal(sha256(join(rig.root, `f${i}.bin`)), hex);
        const held = { root: fdsOn(rig.root), staging: fdsOn(staging) };
        assert.equal(held.root.length, 1, `upload ${i}: root descriptors ${held.root}`);
        assert.equal(held.staging.length, 1, `upload ${i}: staging descriptors ${held.staging}`);
        seen.add(`${held.root}/${held.staging}`);
      }
      assert.equal(seen.size, 1, `the same descriptors throughout: ${[...seen]}`);
      // Status and download use the held root as well.
      assert.equal((await rig.client.status("f0.bin")).committed, true);
      await rig.client.download("f1.bin", join(rig.local, "f1.dest"));
      assert.equal(fdsOn(rig.root).length, 1);
      // Idle: both are closed after the hold time.
      await new Promise((r) => setTimeout(r, HOLD_AFTER_MS + 500));
      assert.deepEqual(fdsOn(rig.root), []);
      assert.deepEqual(fdsOn(staging), []);
      // And opened again by the next call.
      const src = join(rig.local, "g");
      const hex = randomFile(src, 1000);
      assert.equal((await rig.client.upload(src, "g.bin")).sha256, hex);
      assert.equal(sha256(join(rig.root, "g.bin")), hex);
    } finally {
      await rig.close();
    }
  });

  it("an upload after the held staging directory was removed makes a new one", async () => {
    const rig = await memoryRig(codec);
    try {
      const staging = join(rig.root, STAGING_DIR_NAME);
      const src = join(rig.local, "a");
      randomFile(src, 100_000);
      await rig.client.upload(src, "a.bin");
      assert.equal(fdsOn(staging).length, 1, "staging is held");
      rmSync(staging, { recursive: true });
      const hex = randomFile(src, 150_000);
      const up = await rig.client.upload(src, "b.bin");
      assert.equal(up.sha256, hex);
      assert.equal(sha256(join(rig.root, "b.bin")), hex);
      assert.equal(existsSync(staging), true);
      // What was committed before is untouched.
      assert.equal((await rig.client.status("a.bin")).committed, true);
    } finally {
      await rig.close();
    }
  });

  it("a state file without its part file is no partial: not reported, not resumed", async () => {
    const rig = await memoryRig(codec);
    try {
      // A staging directory with a state left behind (by an older version's crash between its
      // commit's rename and the state's removal).
      const src = join(rig.local, "seed");
      randomFile(src, 1000);
      await rig.client.upload(src, "seed.bin");
      const paths = partialPaths(join(rig.root, STAGING_DIR_NAME), "s.bin");
      const size = 300_000;
      writeFileSync(
        paths.state,
        JSON.stringify({ name: "s.bin", sizeBytes: size, confirmedBytes: 65_536 }),
      );
      const st = await rig.client.status("s.bin");
      assert.equal(st.partialBytes, -1);
      assert.equal(st.committed, false);
      // A resume at its offset anyway: FAILED_PRECONDITION, nothing written.
      const resume = rig.raw.upload(
        (async function* () {
          yield {
            name: "s.bin",
            sizeBytes: size,
            offsetBytes: 65_536,
            data: new Uint8Array(10),
            crc32c: 0,
            last: false,
            sha256: new Uint8Array(0),
          };
        })(),
      );
      await assert.rejects(resume, (err: NearwireError) => {
        assert.equal(err.code, Code.FailedPrecondition);
        return true;
      });
      assert.equal(existsSync(paths.part), false);
      // The client's upload starts at 0 and commits.
      const hex = randomFile(src, size);
      const up = await rig.client.upload(src, "s.bin");
      assert.equal(up.resumedFromBytes, 0);
      assert.equal(sha256(join(rig.root, "s.bin")), hex);
    } finally {
      await rig.close();
    }
  });
});
