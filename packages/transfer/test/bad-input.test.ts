import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Code, type NearwireError } from "@nearwire/core";
import { crc32c } from "@nearwire/frame";
import { transferCodec } from "../src/codecs/index.js";
import { createTransferClient, type UploadChunk } from "../src/index.js";
import { type MemoryRig, memoryRig, randomFile, sha256, tmpDir, waitIdle } from "./support/rig.js";

const codec = transferCodec("msgpack");
const hasCode = (code: Code) => (err: NearwireError) => err.code === code;

describe("bad input (memory transport)", () => {
  let rig: MemoryRig;
  let outside: { dir: string; cleanup(): void };
  let goodSrc: string;
  let goodHex: string;
  before(async () => {
    rig = await memoryRig(codec, { maxFileBytes: 1024 * 1024 });
    outside = tmpDir("nwt-outside-");
    goodSrc = join(rig.local, "good.src");
    goodHex = randomFile(goodSrc, 100_000);
  });
  after(async () => {
    await rig.close();
    outside.cleanup();
  });

  /** After every bad input the service still works. */
  async function stillWorks() {
    const up = await rig.client.upload(goodSrc, "good.bin");
    assert.equal(up.sha256, goodHex);
    const dest = join(rig.local, "good.dest");
    await rig.client.download("good.bin", dest);
    assert.equal(sha256(dest), goodHex);
  }

  /** Sends raw upload messages, bypassing the client's checks. */
  function rawUpload(messages: Partial<UploadChunk>[]) {
    const rpc = rig.raw;
    return rpc.upload(
      messages.map((m) => ({
        name: "",
        sizeBytes: -1,
        offsetBytes: 0,
        data: new Uint8Array(0),
        crc32c: 0,
        last: false,
        sha256: new Uint8Array(0),
        ...m,
      })),
    );
  }

  for (const name of [
    "../x",
    "a/../../x",
    "/etc/passwd",
    "a\0b",
    "",
    "a//b",
    "./a",
    "a\\b",
    ".nearwire-transfer/x",
    "x".repeat(1025),
  ]) {
    it(`rejects the name ${JSON.stringify(name.slice(0, 40))} with INVALID_ARGUMENT on the server`, async () => {
      await assert.rejects(rawUpload([{ name, last: true }]), hasCode(Code.InvalidArgument));
      await assert.rejects(rig.raw.status({ name }), hasCode(Code.InvalidArgument));
      await assert.rejects(
        rig.raw
          .download({ name, offsetBytes: 0, prefixSha256: new Uint8Array(0), chunkBytes: 0 })
          [Symbol.asyncIterator]()
          .next(),
        hasCode(Code.InvalidArgument),
      );
      // The client checks too, before any call.
      await assert.rejects(rig.client.upload(goodSrc, name), hasCode(Code.InvalidArgument));
      await stillWorks();
    });
  }

  it("rejects symlinks below the root with PERMISSION_DENIED (reason symlink), wherever they point", async () => {
    const symlinkDenied = (err: NearwireError) =>
      err.code === Code.PermissionDenied && err.reason === "symlink";
    symlinkSync(outside.dir, join(rig.root, "escape"));
    writeFileSync(join(outside.dir, "secret"), "secret");
    symlinkSync(join(outside.dir, "secret"), join(rig.root, "secret-link"));
    mkdirSync(join(rig.root, "real"));
    symlinkSync(join(rig.root, "real"), join(rig.root, "inner-link"));
    await assert.rejects(rig.client.upload(goodSrc, "escape/x"), symlinkDenied);
    await assert.rejects(rig.client.upload(goodSrc, "secret-link"), symlinkDenied);
    await assert.rejects(rig.client.download("secret-link", join(rig.local, "s")), symlinkDenied);
    await assert.rejects(rig.client.status("escape/secret"), symlinkDenied);
    await assert.rejects(rig.client.status("secret-link"), symlinkDenied);
    // A symlink that stays inside the root is refused too: no symlink is ever followed.
    await assert.rejects(rig.client.upload(goodSrc, "inner-link/x"), symlinkDenied);
    assert.equal(existsSync(join(outside.dir, "x")), false);
    assert.equal(existsSync(join(rig.root, "real", "x")), false);
    await stillWorks();
  });

  it("an upload to a name that is itself a symlink is PERMISSION_DENIED symlink, also without the client's status check", async () => {
    const symlinkDenied = (err: NearwireError) =>
      err.code === Code.PermissionDenied && err.reason === "symlink";
    const target = join(outside.dir, "victim");
    writeFileSync(target, "victim");
    symlinkSync(target, join(rig.root, "victim-link"));
    symlinkSync(join(outside.dir, "none"), join(rig.root, "dangling-link"));
    const data = new Uint8Array(1000).fill(7);
    const stagingFiles = () => {
      const staging = join(rig.root, ".nearwire-transfer");
      return existsSync(staging) ? readdirSync(staging).sort() : [];
    };
    const stagedBefore = stagingFiles();
    for (const name of ["victim-link", "dangling-link"]) {
      // A raw client: one message, straight to commit (no status call first).
      await assert.rejects(
        rawUpload([
          {
            name,
            sizeBytes: data.length,
            data,
            crc32c: crc32c(data),
            last: true,
            sha256: createHash("sha256").update(data).digest(),
          },
        ]),
        symlinkDenied,
      );
      await assert.rejects(rig.client.upload([data], name), symlinkDenied);
      assert.ok(lstatSync(join(rig.root, name)).isSymbolicLink(), `${name} is still the link`);
      assert.deepEqual(stagingFiles(), stagedBefore, "no partial upload was started");
    }
    assert.equal(readlinkSync(join(rig.root, "victim-link")), target);
    assert.equal(readFileSync(target, "utf8"), "victim");
    assert.equal(existsSync(join(outside.dir, "none")), false);
    await stillWorks();
  });

  it("a chunk with a bad CRC-32C is DATA_LOSS and the partial keeps the good chunks", async () => {
    const a = new Uint8Array(1000).fill(1);
    const b = new Uint8Array(1000).fill(2);
    await assert.rejects(
      rawUpload([
        { name: "crc.bin", sizeBytes: 2000, data: a, crc32c: crc32c(a) },
        { offsetBytes: 1000, data: b, crc32c: crc32c(b) ^ 1 },
      ]),
      hasCode(Code.DataLoss),
    );
    const st = await waitIdle(rig, "crc.bin");
    assert.equal(st.partialBytes, 1000);
    assert.equal(st.committed, false);
    assert.equal(existsSync(join(rig.root, "crc.bin")), false);
    await stillWorks();
  });

  it("a whole-file SHA-256 mismatch is DATA_LOSS and commits nothing", async () => {
    const a = new Uint8Array(1000).fill(3);
    await assert.rejects(
      rawUpload([
        {
          name: "sha.bin",
          sizeBytes: 1000,
          data: a,
          crc32c: crc32c(a),
          last: true,
          sha256: new Uint8Array(32),
        },
      ]),
      hasCode(Code.DataLoss),
    );
    const st = await waitIdle(rig, "sha.bin");
    assert.equal(st.committed, false);
    assert.equal(st.partialBytes, -1);
    await stillWorks();
  });

  it("a chunk at the wrong offset, a bad resume offset and a size over the declared one are rejected", async () => {
    const a = new Uint8Array(10);
    await assert.rejects(
      rawUpload([
        { name: "o.bin", data: a, crc32c: crc32c(a) },
        { offsetBytes: 5, data: a, crc32c: crc32c(a) },
      ]),
      hasCode(Code.InvalidArgument),
    );
    await waitIdle(rig, "o.bin");
    await assert.rejects(
      rawUpload([{ name: "o.bin", offsetBytes: 12345, data: a, crc32c: crc32c(a) }]),
      hasCode(Code.FailedPrecondition),
    );
    await assert.rejects(
      rig.client.upload([new Uint8Array(20)], "o.bin", { sizeBytes: 10 }),
      hasCode(Code.InvalidArgument),
    );
    await assert.rejects(rawUpload([]), hasCode(Code.InvalidArgument));
    await stillWorks();
  });

  it("files over maxFileBytes are RESOURCE_EXHAUSTED, declared or not", async () => {
    const big = join(rig.local, "big.src");
    randomFile(big, 1024 * 1024 + 1);
    await assert.rejects(rig.client.upload(big, "big.bin"), hasCode(Code.ResourceExhausted));
    async function* endless() {
      for (;;) yield new Uint8Array(65536);
    }
    await assert.rejects(rig.client.upload(endless(), "big.bin"), hasCode(Code.ResourceExhausted));
    assert.equal(existsSync(join(rig.root, "big.bin")), false);
    await stillWorks();
  });

  it("concurrent uploads of one name: the second is ABORTED, the first commits its own bytes", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const first = new Uint8Array(300_000).fill(7);
    async function* slow() {
      yield first.subarray(0, 131_072);
      await gate;
      yield first.subarray(131_072);
    }
    const p1 = rig.client.upload(slow(), "c.bin", { sizeBytes: first.length });
    for (let i = 0; i < 100 && !(await rig.client.status("c.bin")).active; i++)
      await new Promise((r) => setTimeout(r, 5));
    await assert.rejects(rig.client.upload(goodSrc, "c.bin"), hasCode(Code.Aborted));
    release();
    await p1;
    assert.equal(sha256(join(rig.root, "c.bin")), sha256(first));
    await stillWorks();
  });

  it("downloads of a missing name or a directory fail cleanly", async () => {
    await assert.rejects(
      rig.client.download("missing", join(rig.local, "m")),
      hasCode(Code.NotFound),
    );
    mkdirSync(join(rig.root, "adir"));
    await assert.rejects(
      rig.client.download("adir", join(rig.local, "m")),
      hasCode(Code.InvalidArgument),
    );
    await assert.rejects(
      rig.client.upload(goodSrc, "x", { chunkBytes: 0 }),
      hasCode(Code.InvalidArgument),
    );
    for (const resumeFromBytes of [-1, 0.5, Number.NaN])
      assert.throws(
        () =>
          createTransferClient({
            connection: rig.connection,
            codec: transferCodec("msgpack"),
            resumeFromBytes,
          }),
        hasCode(Code.InvalidArgument),
      );
    await stillWorks();
  });
});
