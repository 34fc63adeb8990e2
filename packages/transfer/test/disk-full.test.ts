import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { type ClientConnection, Code, type NearwireError } from "@nearwire/core";
import { createUdsTransport } from "@nearwire/uds";
import { transferCodec } from "../src/codecs/index.js";
import { createTransferClient } from "../src/index.js";
import { randomFile, sha256, tmpDir, waitIdle } from "./support/rig.js";

const CLI = fileURLToPath(new URL("../src/cli/cli.ts", import.meta.url));

/** A 4 MiB tmpfs needs a user and mount namespace (`unshare -rm`); skipped where there is none. */
function canMountTmpfs(dir: string): boolean {
  const r = spawnSync("unshare", ["-rm", "sh", "-c", 'mount -t tmpfs -o size=1m tmpfs "$0"', dir]);
  return r.status === 0;
}

describe("disk full", () => {
  const tmp = tmpDir();
  const mnt = join(tmp.dir, "mnt");
  const local = join(tmp.dir, "local");
  const address = join(tmp.dir, "t.sock");
  mkdirSync(mnt);
  mkdirSync(local);
  const supported = canMountTmpfs(mnt);
  let child: ChildProcess | undefined;
  let connection: ClientConnection | undefined;

  after(async () => {
    await connection?.close();
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child?.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    tmp.cleanup();
  });

  it("is RESOURCE_EXHAUSTED, keeps the partial, and the upload resumes once there is room", {
    skip: supported ? false : "no unshare -rm / tmpfs here",
  }, async () => {
    // The server runs in its own mount namespace with a 4 MiB tmpfs as its root; this process
    // sees that tmpfs through /proc/<pid>/root.
    child = spawn(
      "unshare",
      [
        "-rm",
        "sh",
        "-c",
        'mount -t tmpfs -o size=4m tmpfs "$0" && exec "$1" --import tsx "$2" serve --root "$0" --address "$3" --sync-every-bytes 262144',
        mnt,
        process.execPath,
        CLI,
        address,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve, reject) => {
      child?.stdout?.setEncoding("utf8").on("data", (s: string) => {
        if (s.includes("serving")) resolve();
      });
      child?.once("exit", (code) => reject(new Error(`server exited ${code}`)));
    });
    const serverRoot = `/proc/${child.pid}/root${mnt}`;
    // Fill 2 MiB of the 4 MiB, then upload 3 MiB.
    writeFileSync(join(serverRoot, "filler"), Buffer.alloc(2 * 1024 * 1024));
    connection = await createUdsTransport({ address }).connect();
    const client = createTransferClient({
      connection,
      codec: transferCodec("msgpack"),
      resumeFromBytes: 0, // the 3 MiB upload resumes although it is below the default 4 MiB
    });
    const src = join(local, "f.src");
    const hex = randomFile(src, 3 * 1024 * 1024);
    await assert.rejects(
      client.upload(src, "f.bin"),
      (err: NearwireError) => err.code === Code.ResourceExhausted,
    );
    const st = await waitIdle({ client }, "f.bin");
    assert.equal(st.committed, false);
    assert.ok(st.partialBytes > 0, `partial ${st.partialBytes}`);
    assert.equal(existsSync(join(serverRoot, "f.bin")), false);
    // Other calls still work while the disk is full.
    assert.equal((await client.status("filler")).sizeBytes, 2 * 1024 * 1024);
    rmSync(join(serverRoot, "filler"));
    const up = await client.upload(src, "f.bin");
    assert.equal(up.resumedFromBytes, st.partialBytes);
    assert.equal(sha256(join(serverRoot, "f.bin")), hex);
  });
});
