import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { describe, it } from "node:test";
import { parsePartialState, readPartialState } from "../src/server/partial-state.js";
import { openPartialUpload, partialPaths } from "../src/server/partial-upload.js";
import { sha256, tmpDir } from "./support/rig.js";
import { writePartial } from "./support/write-partial.js";

const KiB = 1024;

/** A partial upload of `name` in `dir` that checkpoints every 64 KiB. */
function openPartial(dir: string, name: string, offsetBytes = 0, sizeBytes = -1) {
  return openPartialUpload({
    paths: partialPaths(dir, name),
    name,
    sizeBytes,
    offsetBytes,
    syncEveryBytes: 64 * KiB,
    sync: true,
    directWrites: false,
  });
}

/** The state file's slots, as written. */
function slots(path: string): string[] {
  return JSON.parse(readFileSync(path, "utf8")).slots;
}

/** `text` with the character at `at` replaced by a different hex digit. */
function flipDigit(text: string, at: number): string {
  const c = text[at] === "0" ? "1" : "0";
  return text.slice(0, at) + c + text.slice(at + 1);
}

describe("partial upload state file", () => {
  it("one file per upload call, its slots overwritten in place; it reads back the latest checkpoint", async () => {
    const t = tmpDir();
    try {
      const name = 'dir/ü "quoted".bin';
      const partial = await openPartial(t.dir, name, 0, 1024 * KiB);
      const block = randomBytes(64 * KiB);
      await writePartial(partial, block);
      await partial.settled();
      const path = partial.paths.state;
      const { ino } = statSync(path);
      assert.deepEqual(await readPartialState(path), {
        name,
        sizeBytes: 1024 * KiB,
        confirmedBytes: 64 * KiB,
      });
      for (let i = 2; i <= 5; i++) {
        await writePartial(partial, block);
        await partial.settled();
        assert.equal(statSync(path).ino, ino, `checkpoint ${i}: the same file, not a new one`);
        assert.equal((await readPartialState(path))?.confirmedBytes, i * 64 * KiB);
      }
      // The other slot holds the checkpoint before the latest.
      const [even, odd] = slots(path);
      assert.match(odd as string, /^00000005:00000000050000:[0-9a-f]{8}$/);
      assert.match(even as string, /^00000004:00000000040000:[0-9a-f]{8}$/);
      assert.equal(existsSync(`${path}.tmp`), false);
      await partial.close();
    } finally {
      t.cleanup();
    }
  });

  it("a torn latest slot falls back to the one before; two torn slots are no state", async () => {
    const t = tmpDir();
    try {
      const partial = await openPartial(t.dir, "a.bin");
      for (let i = 0; i < 3; i++) await writePartial(partial, randomBytes(64 * KiB));
      await partial.settled();
      await partial.close();
      const text = readFileSync(partial.paths.state, "utf8");
      assert.equal(parsePartialState(text)?.confirmedBytes, 192 * KiB);
      const latest = text.indexOf('"00000003:') + 1;
      const older = text.indexOf('"00000002:') + 1;
      assert.ok(latest > 0 && older > 0, text);
      // A crash mid-write: the offset of the latest changed but not its CRC, its CRC but not
      // its offset, or its sequence number.
      for (const at of [latest + 20, latest + 30, latest + 3]) {
        const torn = flipDigit(text, at);
        assert.equal(parsePartialState(torn)?.confirmedBytes, 128 * KiB, `torn at +${at - latest}`);
      }
      const both = flipDigit(flipDigit(text, latest + 20), older + 20);
      assert.equal(parsePartialState(both), undefined);
      // Not a state file at all.
      for (const bad of ["", "{", "null", "[]", '{"name":1,"sizeBytes":0,"confirmedBytes":0}'])
        assert.equal(parsePartialState(bad), undefined, JSON.stringify(bad));
      assert.equal(
        parsePartialState(text.replace('"slots":', '"slotz":')),
        undefined,
        "no slots and no confirmedBytes",
      );
    } finally {
      t.cleanup();
    }
  });

  it("a partial checkpointed by an older version (confirmedBytes in its JSON) resumes, then checkpoints in slots", async () => {
    const t = tmpDir();
    try {
      const name = "old.bin";
      const paths = partialPaths(t.dir, name);
      const data = randomBytes(256 * KiB);
      // 192 KiB on disk, 128 KiB confirmed: the rest may not have been synced.
      writeFileSync(paths.part, data.subarray(0, 192 * KiB));
      writeFileSync(
        paths.state,
        JSON.stringify({ name, sizeBytes: data.byteLength, confirmedBytes: 128 * KiB }),
      );
      const partial = await openPartial(t.dir, name, 128 * KiB, data.byteLength);
      assert.equal(partial.writtenBytes, 128 * KiB);
      assert.equal(statSync(paths.part).size, 128 * KiB, "truncated to the confirmed offset");
      await writePartial(partial, data.subarray(128 * KiB, 192 * KiB));
      await partial.settled();
      assert.equal(slots(paths.state).length, 2);
      assert.deepEqual(await readPartialState(paths.state), {
        name,
        sizeBytes: data.byteLength,
        confirmedBytes: 192 * KiB,
      });
      // The hash resumed from the file's first 128 KiB (the upload handler feeds it the rest).
      partial.hash.update(data.subarray(128 * KiB));
      assert.equal(partial.hash.digest("hex"), sha256(data));
      await partial.close();
    } finally {
      t.cleanup();
    }
  });
});
