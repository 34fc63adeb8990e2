import assert from "node:assert/strict";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Code, type NearwireError } from "@nearwire/core";
import { transferCodec } from "../src/codecs/index.js";
import { createTransferHandlers, DOWNLOAD_PART_SUFFIX } from "../src/index.js";
import { type MemoryRig, memoryRig, randomFile, tmpDir } from "./support/rig.js";

/** A rejection with `code` whose message matches `message`. */
const failsWith = (code: Code, message: RegExp) => (err: NearwireError) => {
  assert.equal(err.code, code, err.message);
  assert.match(err.message, message);
  return true;
};

// Core maps ENOENT to UNAVAILABLE (a socket path that is gone). A missing local file is not a
// lost connection: these must never be UNAVAILABLE, which callers retry.
describe("local file-system errors", () => {
  let rig: MemoryRig;
  before(async () => {
    rig = await memoryRig(transferCodec("msgpack"));
  });
  after(async () => {
    await rig.close();
  });

  it("a missing root is NOT_FOUND, a file as root INVALID_ARGUMENT, both naming the path", () => {
    const tmp = tmpDir();
    try {
      const missing = join(tmp.dir, "gone");
      assert.throws(
        () => createTransferHandlers({ root: missing }),
        failsWith(Code.NotFound, new RegExp(`^root "${missing}": no such file or directory`)),
      );
      const file = join(tmp.dir, "file");
      writeFileSync(file, "x");
      assert.throws(
        () => createTransferHandlers({ root: file }),
        failsWith(Code.InvalidArgument, new RegExp(`^root "${file}" is not a directory`)),
      );
    } finally {
      tmp.cleanup();
    }
  });

  it("an upload of a missing local file is NOT_FOUND; of a directory INVALID_ARGUMENT", async () => {
    const missing = join(rig.local, "no-such-file");
    await assert.rejects(
      rig.client.upload(missing, "x.bin"),
      failsWith(Code.NotFound, new RegExp(`^local file "${missing}": no such file or directory`)),
    );
    await assert.rejects(
      rig.client.upload(rig.local, "x.bin"),
      failsWith(Code.InvalidArgument, new RegExp(`^local file "${rig.local}" is a directory`)),
    );
  });

  it("a download of a missing name is NOT_FOUND and leaves no part file behind", async () => {
    const dest = join(rig.local, "missing.dest");
    await assert.rejects(
      rig.client.download("no/such.bin", dest),
      failsWith(Code.NotFound, /"no\/such.bin" not found/),
    );
    assert.equal(existsSync(dest + DOWNLOAD_PART_SUFFIX), false);
    assert.equal(existsSync(dest), false);
  });

  it("a download into a missing local directory is NOT_FOUND, naming the destination", async () => {
    randomFile(join(rig.root, "here.bin"), 1000);
    const dest = join(rig.local, "no-such-dir", "here.dest");
    await assert.rejects(
      rig.client.download("here.bin", dest),
      failsWith(
        Code.NotFound,
        new RegExp(`^download destination "${dest}": no such file or directory`),
      ),
    );
  });

  it("a served root removed while serving is NOT_FOUND for every call, not UNAVAILABLE", async () => {
    const tmp = tmpDir();
    const other = await memoryRig(transferCodec("msgpack"));
    try {
      rmSync(other.root, { recursive: true });
      await assert.rejects(other.client.status("a.bin"), failsWith(Code.NotFound, /served root/));
      await assert.rejects(
        other.client.download("a.bin", join(tmp.dir, "a.dest")),
        failsWith(Code.NotFound, /served root/),
      );
    } finally {
      await other.close();
      tmp.cleanup();
    }
  });
});
