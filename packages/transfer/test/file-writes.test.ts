import assert from "node:assert/strict";
import { closeSync, constants, openSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { Code, type NearwireError } from "@nearwire/core";
import type { TransferProgress } from "../src/client/options.js";
import { transferCodec } from "../src/codecs/index.js";
import { FileWrites } from "../src/file-writes.js";
import { createTransferHandlers } from "../src/index.js";
import {
  alignedForDirectIo,
  DIRECT_IO_ALIGN,
  giveIoBuffer,
  IO_BUFFER_BYTES,
  takeIoBuffer,
} from "../src/io-buffers.js";
import { memoryRig, randomFile, sha256, tmpDir } from "./support/rig.js";

/** O_DIRECT on x86-64 and arm64 Linux, as `/proc/self/fdinfo` prints flags (octal). */
const O_DIRECT = constants.O_DIRECT as number;

/** The flags of this process's descriptors open on `path` (or a file it matches), one each. */
function flagsOfDescriptorsOn(path: string | RegExp): number[] {
  const out: number[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // the directory's own descriptor, closed by now
    }
    if (typeof path === "string" ? target !== path : !path.test(target)) continue;
    const info = readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
    const flags = /^flags:\s+([0-7]+)$/m.exec(info);
    out.push(Number.parseInt((flags as RegExpExecArray)[1] as string, 8));
  }
  return out;
}

/** True when the file system of `dir` opens files with O_DIRECT (ext4 does; old tmpfs not). */
function takesDirect(dir: string): boolean {
  const probe = join(dir, "probe");
  try {
    closeSync(openSync(probe, constants.O_CREAT | constants.O_WRONLY | O_DIRECT, 0o600));
    return true;
  } catch {
    return false;
  }
}

/** `n` bytes counting up from `start` (mod 251), so any misplaced byte shows. */
function pattern(start: number, n: number, into: Uint8Array = new Uint8Array(n)): Uint8Array {
  for (let i = 0; i < n; i++) into[i] = (start + i) % 251;
  return into;
}

/**
 * Runs `body` on a new file in a temporary directory, open read-write, with two pooled I/O
 * buffers; closes and removes everything after.
 */
async function withFile(
  body: (f: {
    dir: string;
    path: string;
    fd: number;
    a: Uint8Array;
    b: Uint8Array;
  }) => Promise<void>,
): Promise<void> {
  const t = tmpDir();
  const path = join(t.dir, "f.bin");
  const fh = await open(path, "w+");
  const a = takeIoBuffer();
  const b = takeIoBuffer();
  try {
    await body({ dir: t.dir, path, fd: fh.fd, a, b });
  } finally {
    giveIoBuffer(a);
    giveIoBuffer(b);
    await fh.close();
    t.cleanup();
  }
}

const write = (w: FileWrites, data: Uint8Array, pos: number): Promise<void> =>
  new Promise((resolve, reject) => w.write(data, pos, (err) => (err ? reject(err) : resolve())));

describe("file writes", () => {
  it("I/O buffers start on a page; an ordinary array is not taken for one", () => {
    const b = takeIoBuffer();
    try {
      assert.equal(b.byteLength, IO_BUFFER_BYTES);
      assert.ok(alignedForDirectIo(b), "a pooled I/O buffer is page-aligned");
      assert.ok(alignedForDirectIo(b.subarray(DIRECT_IO_ALIGN)), "so is a view a page into it");
      assert.ok(!alignedForDirectIo(b.subarray(512)), "a view 512 B into it is not");
      assert.ok(!alignedForDirectIo(new Uint8Array(IO_BUFFER_BYTES)), "nor a plain array");
    } finally {
      giveIoBuffer(b);
    }
  });

  it("whole aligned batches past the page cache, the rest through it, every byte in place", () =>
    withFile(async ({ dir, path, fd, a, b }) => {
      const direct = takesDirect(dir);
      const w = await FileWrites.open(fd, true);
      assert.equal(w.isDirect, direct);
      assert.equal(w.writesInFlight, direct ? 2 : 1);
      const flags = flagsOfDescriptorsOn(path);
      assert.equal(flags.length, direct ? 2 : 1, "the file's own descriptor, and an O_DIRECT one");
      assert.equal(flags.filter((f) => (f & O_DIRECT) !== 0).length, direct ? 1 : 0);

      const n = IO_BUFFER_BYTES;
      await write(w, pattern(0, n, a), 0); // aligned: O_DIRECT
      await write(w, pattern(n, n, b), n); // aligned: O_DIRECT
      const tail = pattern(2 * n, 1000); // a plain array, an unaligned length: page cache
      await write(w, tail, 2 * n);
      // An unaligned position, from an aligned buffer and length: page cache.
      const odd = 2 * n + 1000;
      await write(w, pattern(odd, DIRECT_IO_ALIGN, a.subarray(0, DIRECT_IO_ALIGN)), odd);
      assert.equal(w.isDirect, direct, "no write was refused");
      await w.close();
      assert.equal(flagsOfDescriptorsOn(path).length, 1, "close() closed the O_DIRECT one");
      const got = new Uint8Array(readFileSync(path));
      assert.equal(got.byteLength, odd + DIRECT_IO_ALIGN);
      assert.deepEqual(got, pattern(0, got.byteLength));
    }));

  it("off: one descriptor, every write through the page cache", () =>
    withFile(async ({ path, fd, a }) => {
      const w = await FileWrites.open(fd, false);
      assert.equal(w.isDirect, false);
      assert.equal(w.writesInFlight, 1);
      assert.deepEqual(flagsOfDescriptorsOn(path).length, 1);
      await write(w, pattern(0, IO_BUFFER_BYTES, a), 0);
      await w.close();
      assert.deepEqual(new Uint8Array(readFileSync(path)), pattern(0, IO_BUFFER_BYTES));
    }));

  it("close() waits for the write in flight before it closes the O_DIRECT descriptor", () =>
    withFile(async ({ path, fd, a }) => {
      const w = await FileWrites.open(fd, true);
      let ended: NodeJS.ErrnoException | null | undefined;
      w.write(pattern(7, IO_BUFFER_BYTES, a), 0, (err) => {
        ended = err;
      });
      assert.equal(ended, undefined, "done is never called before write returns");
      await w.close();
      assert.equal(ended, null, "the write ended, without error, before close() resolved");
      assert.equal(flagsOfDescriptorsOn(path).length, 1);
      assert.deepEqual(new Uint8Array(readFileSync(path)), pattern(7, IO_BUFFER_BYTES));
      await w.close(); // a second close is a no-op
    }));

  it("close() called twice while a write is in flight: both resolve, once it is closed", () =>
    withFile(async ({ path, fd, a }) => {
      const w = await FileWrites.open(fd, true);
      let ended: NodeJS.ErrnoException | null | undefined;
      w.write(pattern(3, IO_BUFFER_BYTES, a), 0, (err) => {
        ended = err;
      });
      const first = w.close();
      const second = w.close();
      assert.equal(second, first, "the second call gets the first one's promise");
      // Before the fix the second call replaced the first's callback: `first` never settled.
      let timer: NodeJS.Timeout | undefined;
      const settled = await Promise.race([
        Promise.all([first, second]).then(() => "both"),
        new Promise((r) => {
          timer = setTimeout(r, 5000, "timed out");
        }),
      ]);
      clearTimeout(timer);
      assert.equal(settled, "both");
      assert.equal(ended, null, "the write ended first, without error");
      assert.equal(flagsOfDescriptorsOn(path).length, 1, "the O_DIRECT descriptor is closed");
      assert.deepEqual(new Uint8Array(readFileSync(path)), pattern(3, IO_BUFFER_BYTES));
    }));

  for (const directWrites of [true, false]) {
    it(`an upload's and a download's part files, directWrites ${directWrites}`, async () => {
      const rig = await memoryRig(transferCodec("raw"), directWrites ? {} : { directWrites });
      try {
        const direct = directWrites && takesDirect(rig.local);
        const data = pattern(3, 4 * 1024 * 1024);
        const MiB = 1024 * 1024;
        // The upload's source waits, half-way, until the server has the part file open (and,
        // where the file system takes O_DIRECT, its second descriptor: opened just after).
        const want = direct ? 2 : 1;
        let upFlags: number[] = [];
        async function* halves() {
          yield data.subarray(0, 2 * MiB);
          for (let i = 0; i < 200 && upFlags.length < want; i++) {
            await new Promise((r) => setTimeout(r, 10));
            upFlags = flagsOfDescriptorsOn(/\.part$/);
          }
          yield data.subarray(2 * MiB);
        }
        const sent = await rig.client.upload(Readable.from(halves()), "big.bin");
        assert.equal(sent.sha256, sha256(data));
        // The download's part is open from before its first chunk to after its last.
        let downFlags: number[] = [];
        const dest = join(rig.local, "big.bin");
        await rig.client.download("big.bin", dest, {
          directWrites,
          onProgress: (p: TransferProgress) => {
            if (p.transferredBytes >= MiB && downFlags.length === 0)
              downFlags = flagsOfDescriptorsOn(/\.nearwire-part$/);
          },
        });
        assert.equal(sha256(dest), sha256(data));
        for (const flags of [upFlags, downFlags]) {
          assert.equal(flags.length, want, "the part's own descriptor (and an O_DIRECT one)");
          assert.equal(flags.filter((f) => (f & O_DIRECT) !== 0).length, direct ? 1 : 0);
        }
        assert.deepEqual(flagsOfDescriptorsOn(/part$/), [], "every descriptor closed");
      } finally {
        await rig.close();
      }
    });
  }

  it("directWrites that is not a boolean is INVALID_ARGUMENT, on the server and a download", async () => {
    const bad = (err: NearwireError) =>
      err.code === Code.InvalidArgument &&
      /directWrites "no" is not true or false/.test(err.message);
    const t = tmpDir();
    try {
      const directWrites = "no" as unknown as boolean;
      assert.throws(() => createTransferHandlers({ root: t.dir, directWrites }), bad);
    } finally {
      t.cleanup();
    }
    const rig = await memoryRig(transferCodec("raw"));
    try {
      const want = randomFile(join(rig.local, "src.bin"), 100_000);
      await rig.client.upload(join(rig.local, "src.bin"), "f.bin");
      const dest = join(rig.local, "dest.bin");
      const directWrites = "no" as unknown as boolean;
      await assert.rejects(rig.client.download("f.bin", dest, { directWrites }), bad);
      assert.deepEqual(
        readdirSync(rig.local).sort(),
        ["src.bin"],
        "nothing written, not even a part file",
      );
      // The same client goes on working.
      await rig.client.download("f.bin", dest);
      assert.equal(sha256(dest), want);
    } finally {
      await rig.close();
    }
  });
});
