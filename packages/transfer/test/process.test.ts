import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { type ServerProcess, startServerProcess } from "@nearwire/conformance";
import { type ClientConnection, Code, type NearwireError } from "@nearwire/core";
import { createUdsTransport } from "@nearwire/uds";
import { transferCodec } from "../src/codecs/index.js";
import { createTransferClient, DOWNLOAD_PART_SUFFIX } from "../src/index.js";
import { randomFile, sha256, tmpDir, waitIdle } from "./support/rig.js";

const CLI = fileURLToPath(new URL("../src/cli/cli.ts", import.meta.url));
const SLOW_UPLOAD = fileURLToPath(new URL("fixtures/slow-upload.ts", import.meta.url));
const codec = transferCodec("msgpack");
const hasCode = (code: Code) => (err: NearwireError) => err.code === code;

describe("transfer between processes over uds", () => {
  const tmp = tmpDir();
  const root = join(tmp.dir, "root");
  const local = join(tmp.dir, "local");
  const address = join(tmp.dir, "t.sock");
  const children: ChildProcess[] = [];
  let server: ServerProcess | undefined;
  const connections: ClientConnection[] = [];

  const startServer = async () => {
    server = await startServerProcess(
      CLI,
      ["serve", "--root", root, "--address", address, "--sync-every-bytes", String(256 * 1024)],
      { readyPrefix: "serving" },
    );
  };
  const connect = async () => {
    const connection = await createUdsTransport({ address }).connect();
    connections.push(connection);
    // Files below the default resumeFromBytes (4 MiB) resume too: they are small to be quick.
    return createTransferClient({ connection, codec, resumeFromBytes: 0 });
  };
  /** Runs the CLI to completion; resolves to its exit code, stdout and stderr. */
  const cli = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [
        "--import",
        "tsx",
        CLI,
        ...args,
        "--address",
        address,
      ]);
      children.push(child);
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (s: string) => {
        stdout += s;
      });
      child.stderr.setEncoding("utf8").on("data", (s: string) => {
        stderr += s;
      });
      child.once("exit", (code) => resolve({ code, stdout, stderr }));
    });

  before(async () => {
    mkdirSync(root);
    mkdirSync(local);
    await startServer();
  });
  after(async () => {
    for (const c of connections) await c.close().catch(() => {});
    for (const c of children)
      if (c.exitCode === null && c.signalCode === null && c.pid !== undefined) c.kill("SIGKILL");
    await server?.stop();
    tmp.cleanup();
  });

  it("the CLI puts and gets a file with a progress bar", async () => {
    const src = join(local, "cli.src");
    const hex = randomFile(src, 3 * 1024 * 1024 + 17);
    const put = await cli(["put", src, "cli/file.bin"]);
    assert.equal(put.code, 0, put.stderr);
    assert.match(put.stderr, /\[#+\] 100%/);
    assert.match(put.stdout, new RegExp(`sha256 ${hex}`));
    const dest = join(local, "cli.dest");
    const get = await cli(["get", "cli/file.bin", dest]);
    assert.equal(get.code, 0, get.stderr);
    assert.match(get.stderr, /100%/);
    assert.equal(sha256(dest), hex);
    const bad = await cli(["get", "../etc/passwd", join(local, "x")]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /INVALID_ARGUMENT/);
  });

  it("a file rewritten in place mid-download fails ABORTED changed-during-read; a retry gets one version", async () => {
    const size = 16 * 1024 * 1024; // far over the 1 MiB flow-control window: read after the rewrite
    const path = join(root, "rw.bin");
    const v1 = randomBytes(size);
    const v2 = randomBytes(size);
    writeFileSync(path, v1);
    const inode = statSync(path).ino;
    const steadyHex = randomFile(join(root, "steady.bin"), 4 * 1024 * 1024);
    const client = await connect();
    const dest = join(local, "rw.dest");
    let rewritten = false;
    const torn = client.download("rw.bin", dest, {
      onProgress: (p) => {
        if (rewritten || p.transferredBytes < 1024 * 1024) return;
        rewritten = true; // this process rewrites the served file: same inode, same size
        const fd = openSync(path, "r+");
        try {
          for (let at = 0; at < size; ) at += writeSync(fd, v2, at, size - at, at);
        } finally {
          closeSync(fd);
        }
      },
    });
    const steady = client.download("steady.bin", join(local, "steady.dest"));
    await assert.rejects(torn, (err: NearwireError) => {
      assert.equal(err.code, Code.Aborted);
      assert.equal(err.reason, "changed-during-read");
      return true;
    });
    assert.ok(rewritten);
    assert.equal((await steady).sha256, steadyHex, "a download of another file is untouched");
    assert.equal(statSync(path).ino, inode);
    assert.equal(existsSync(dest), false, "no file of mixed versions under the name");
    const again = await client.download("rw.bin", dest);
    assert.equal(again.sha256, sha256(v2));
    assert.equal(sha256(dest), sha256(v2));
    assert.equal(existsSync(dest + DOWNLOAD_PART_SUFFIX), false);
  });

  it("resumes after the client is killed with SIGKILL mid-upload", async () => {
    const src = join(local, "k.src");
    const hex = randomFile(src, 4 * 1024 * 1024);
    const child = spawn(process.execPath, ["--import", "tsx", SLOW_UPLOAD, address, src, "k.bin"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    const exited = new Promise((r) => child.once("exit", r));
    await new Promise<void>((resolve, reject) => {
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (s: string) => {
        out += s;
        const sent = Number(out.trim().split("\n").at(-1)?.split(" ")[1]);
        if (sent >= 1.5 * 1024 * 1024) resolve();
      });
      child.once("exit", () => reject(new Error("upload child exited before it was killed")));
    });
    child.kill("SIGKILL");
    await exited;
    const client = await connect();
    const st = await waitIdle({ client }, "k.bin");
    assert.equal(st.committed, false);
    assert.ok(st.partialBytes >= 1024 * 1024, `partial ${st.partialBytes}`);
    const up = await client.upload(src, "k.bin");
    assert.equal(up.resumedFromBytes, st.partialBytes);
    assert.equal(up.sha256, hex);
    assert.equal(sha256(join(root, "k.bin")), hex);
  });

  it("resumes an upload and a download after the server is killed with SIGKILL and restarted", async () => {
    const src = join(local, "s.src");
    const hex = randomFile(src, 4 * 1024 * 1024);
    const data = readFileSync(src);
    async function* slow() {
      for (let i = 0; i < data.length; i += 65536) {
        await sleep(5);
        yield data.subarray(i, i + 65536);
      }
    }
    let client = await connect();
    let killed: Promise<void> | undefined;
    await assert.rejects(
      client.upload(slow(), "s.bin", {
        sizeBytes: data.length,
        onProgress: (p) => {
          if (p.transferredBytes >= 1.5 * 1024 * 1024 && killed === undefined && server) {
            process.kill(server.pid, "SIGKILL");
            killed = server.stop();
          }
        },
      }),
      hasCode(Code.Unavailable),
    );
    await killed;
    await startServer();
    client = await connect();
    const st = await client.status("s.bin");
    assert.equal(st.committed, false); // nothing under the final name after the crash
    assert.ok(st.partialBytes >= 256 * 1024, `partial ${st.partialBytes}`);
    // A checkpoint confirms what was written when 256 KiB had gathered since the last one; the
    // writer batches whatever chunks queued meanwhile, so the offset is a chunk boundary (64 KiB),
    // not necessarily a multiple of 256 KiB.
    assert.equal(st.partialBytes % (64 * 1024), 0);
    const up = await client.upload(src, "s.bin");
    assert.equal(up.resumedFromBytes, st.partialBytes);
    assert.equal(sha256(join(root, "s.bin")), hex);

    // Download: kill the server after 1 MiB of 8 MiB arrived, restart, resume.
    const big = join(local, "b.src");
    const bigHex = randomFile(big, 8 * 1024 * 1024);
    await client.upload(big, "b.bin");
    const dest = join(local, "b.dest");
    killed = undefined;
    await assert.rejects(
      client.download("b.bin", dest, {
        onProgress: (p) => {
          if (p.transferredBytes >= 1024 * 1024 && killed === undefined && server) {
            process.kill(server.pid, "SIGKILL");
            killed = server.stop();
          }
        },
      }),
      hasCode(Code.Unavailable),
    );
    await killed;
    await startServer();
    client = await connect();
    const down = await client.download("b.bin", dest);
    assert.ok(down.resumedFromBytes >= 1024 * 1024);
    assert.equal(sha256(dest), bigHex);
    assert.equal(existsSync(dest + DOWNLOAD_PART_SUFFIX), false);
  });
});
