import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import diagnostics_channel from "node:diagnostics_channel";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { Code, type NearwireError } from "@nearwire/core";
import { transferCodec } from "../src/codecs/index.js";
import { createTransferClient, DOWNLOAD_PART_SUFFIX } from "../src/index.js";
import { type MemoryRig, memoryRig, randomFile, sha256, waitIdle } from "./support/rig.js";

for (const codecName of ["json", "msgpack", "protobuf", "flatbuffers", "raw"] as const) {
  describe(`transfer over the memory transport (${codecName})`, () => {
    let rig: MemoryRig;
    before(async () => {
      rig = await memoryRig(transferCodec(codecName));
    });
    after(async () => {
      await rig.close();
    });

    it("uploads and downloads byte-identical files (odd size, empty, nested name)", async () => {
      for (const [name, bytes] of [
        ["a.bin", 1024 * 1024 + 123],
        ["empty", 0],
        ["dir/sub/b.bin", 70_000],
      ] as const) {
        const src = join(rig.local, `${name.replaceAll("/", "_")}.src`);
        const hex = randomFile(src, bytes);
        const up = await rig.client.upload(src, name);
        assert.equal(up.sha256, hex);
        assert.equal(up.sizeBytes, bytes);
        assert.equal(sha256(join(rig.root, name)), hex);
        const dest = join(rig.local, `${name.replaceAll("/", "_")}.dest`);
        const down = await rig.client.download(name, dest);
        assert.equal(down.sha256, hex);
        assert.equal(sha256(dest), hex);
        assert.equal(existsSync(dest + DOWNLOAD_PART_SUFFIX), false);
      }
      const st = await rig.client.status("a.bin");
      assert.equal(st.committed, true);
      assert.equal(st.sizeBytes, 1024 * 1024 + 123);
      assert.equal(st.partialBytes, -1);
      // Nothing but committed files and the (empty) staging directory is left in the root.
      assert.deepEqual(readdirSync(join(rig.root, ".nearwire-transfer")), []);
    });

    it("uploads from a Node stream and an async iterable; downloads into a Writable", async () => {
      const data = randomBytes(300_000);
      await rig.client.upload(Readable.from([data.subarray(0, 1000), data.subarray(1000)]), "s1");
      async function* pieces() {
        for (let i = 0; i < data.length; i += 7777) yield data.subarray(i, i + 7777);
      }
      const up = await rig.client.upload(pieces(), "s2", {
        sizeBytes: data.length,
        chunkBytes: 4096,
      });
      assert.equal(up.sha256, sha256(data));
      const sink = new PassThrough();
      const parts: Buffer[] = [];
      sink.on("data", (b: Buffer) => parts.push(b));
      const down = await rig.client.download("s1", sink);
      assert.equal(down.sha256, sha256(data));
      assert.equal(sha256(Buffer.concat(parts)), sha256(data));
    });

    it("reports progress up to the total", async () => {
      const src = join(rig.local, "p.src");
      randomFile(src, 200_000);
      const seen: number[] = [];
      await rig.client.upload(src, "p", {
        chunkBytes: 65536,
        onProgress: (p) => seen.push(p.transferredBytes),
      });
      assert.equal(seen.at(-1), 200_000);
      assert.ok(seen.length >= 4);
    });
  });
}

describe("resume (memory transport, msgpack)", () => {
  let rig: MemoryRig;
  before(async () => {
    rig = await memoryRig(transferCodec("msgpack"), { syncEveryBytes: 128 * 1024 });
  });
  after(async () => {
    await rig.close();
  });

  it("an aborted upload keeps its confirmed bytes and the next upload continues from there", async () => {
    const src = join(rig.local, "r.src");
    const hex = randomFile(src, 2 * 1024 * 1024 + 5);
    const ac = new AbortController();
    await assert.rejects(
      rig.client.upload(src, "r.bin", {
        signal: ac.signal,
        onProgress: (p) => {
          if (p.transferredBytes >= 700_000) ac.abort();
        },
      }),
      (err: NearwireError) => err.code === Code.Canceled,
    );
    const st = await waitIdle(rig, "r.bin");
    assert.ok(st.partialBytes > 0, `partial ${st.partialBytes}`);
    assert.equal(st.committed, false);
    assert.equal(existsSync(join(rig.root, "r.bin")), false);
    const up = await rig.client.upload(src, "r.bin");
    assert.equal(up.resumedFromBytes, st.partialBytes);
    assert.equal(sha256(join(rig.root, "r.bin")), hex);
  });

  it("by default an upload below 4 MiB starts at once; from 4 MiB on it asks to resume", async () => {
    // The methods the default client calls, seen on core's diagnostics channel.
    const calls: string[] = [];
    const onStart = (message: unknown) =>
      calls.push((message as { request: { method: string } }).request.method);
    const client = createTransferClient({
      connection: rig.connection,
      codec: transferCodec("msgpack"),
    });
    diagnostics_channel.subscribe("nearwire:client:call:start", onStart);
    try {
      for (const [name, bytes] of [
        ["below.bin", 4 * 1024 * 1024 - 1],
        ["at.bin", 4 * 1024 * 1024],
      ] as const) {
        const src = join(rig.local, `${name}.src`);
        const hex = randomFile(src, bytes);
        const ac = new AbortController();
        await assert.rejects(
          rig.client.upload(src, name, {
            signal: ac.signal,
            onProgress: (p) => {
              if (p.transferredBytes >= 1_000_000) ac.abort();
            },
          }),
          (err: NearwireError) => err.code === Code.Canceled,
        );
        const st = await waitIdle(rig, name);
        assert.ok(st.partialBytes > 0, `${name}: partial ${st.partialBytes}`);
        calls.length = 0;
        const up = await client.upload(src, name);
        assert.equal(sha256(join(rig.root, name)), hex, name);
        if (bytes < 4 * 1024 * 1024) {
          assert.deepEqual(calls, ["upload"], `${name}: no status call`);
          assert.equal(up.resumedFromBytes, 0, `${name}: sent whole, the partial replaced`);
        } else {
          assert.deepEqual(calls, ["status", "upload"], name);
          assert.equal(up.resumedFromBytes, st.partialBytes, name);
        }
        assert.equal((await rig.client.status(name)).partialBytes, -1, `${name}: no partial left`);
      }
    } finally {
      diagnostics_channel.unsubscribe("nearwire:client:call:start", onStart);
    }
  });

  it("an aborted download resumes from the verified bytes on disk", async () => {
    const src = join(rig.local, "d.src");
    const hex = randomFile(src, 2 * 1024 * 1024);
    await rig.client.upload(src, "d.bin");
    const dest = join(rig.local, "d.dest");
    const ac = new AbortController();
    await assert.rejects(
      rig.client.download("d.bin", dest, {
        signal: ac.signal,
        onProgress: (p) => {
          if (p.transferredBytes >= 500_000) ac.abort();
        },
      }),
      (err: NearwireError) => err.code === Code.Canceled,
    );
    const have = statSync(dest + DOWNLOAD_PART_SUFFIX).size;
    assert.ok(have > 0);
    const down = await rig.client.download("d.bin", dest);
    assert.equal(down.resumedFromBytes, have);
    assert.equal(sha256(dest), hex);
  });

  it("a download whose bytes on disk differ from the server's file starts over", async () => {
    const src = join(rig.local, "m.src");
    const hex = randomFile(src, 300_000);
    await rig.client.upload(src, "m.bin");
    const dest = join(rig.local, "m.dest");
    writeFileSync(dest + DOWNLOAD_PART_SUFFIX, randomBytes(100_000));
    const down = await rig.client.download("m.bin", dest);
    assert.equal(down.resumedFromBytes, 0);
    assert.equal(sha256(dest), hex);
  });

  it("an upload of a file of another size does not resume a stale partial", async () => {
    const src = join(rig.local, "x.src");
    randomFile(src, 1024 * 1024);
    const ac = new AbortController();
    await assert.rejects(
      rig.client.upload(src, "x.bin", {
        signal: ac.signal,
        onProgress: (p) => p.transferredBytes >= 400_000 && ac.abort(),
      }),
    );
    await waitIdle(rig, "x.bin");
    const hex = randomFile(src, 900_000);
    const up = await rig.client.upload(src, "x.bin");
    assert.equal(up.resumedFromBytes, 0);
    assert.equal(sha256(join(rig.root, "x.bin")), hex);
  });
});
