import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { type ServerProcess, startServerProcess } from "@nearwire/conformance";
import type { ClientConnection, Server } from "@nearwire/core";
import { createUdsTransport } from "@nearwire/uds";
import { parseCli } from "../src/cli/args.js";
import { RETRY_BASE_MS, RETRY_MAX_MS, retryDelayMs } from "../src/cli/backoff.js";
import { transferCodec } from "../src/codecs/index.js";
import {
  createTransferClient,
  createTransferHandlers,
  DOWNLOAD_PART_SUFFIX,
  TransferService,
} from "../src/index.js";
import { randomFile, sha256, tmpDir, waitIdle } from "./support/rig.js";

const CLI = fileURLToPath(new URL("../src/cli/cli.ts", import.meta.url));
const VERSION = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe("nearwire-transfer exit status and messages", () => {
  const tmp = tmpDir();
  const root = join(tmp.dir, "root");
  const local = join(tmp.dir, "local");
  const address = join(tmp.dir, "t.sock");
  const children: ChildProcess[] = [];
  let server: ServerProcess | undefined;

  /** Runs the CLI with `args` to its exit. */
  const cli = (args: string[]) =>
    new Promise<Exit>((resolve) => {
      const child = spawn(process.execPath, ["--import", "tsx", CLI, ...args]);
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
    server = await startServerProcess(CLI, ["serve", "--root", root, "--address", address], {
      readyPrefix: "serving",
    });
  });
  after(async () => {
    for (const c of children)
      if (c.exitCode === null && c.signalCode === null && c.pid !== undefined) c.kill("SIGKILL");
    await server?.stop();
    tmp.cleanup();
  });

  it("--version prints the package version; --help the usage; both exit 0", async () => {
    const v = await cli(["--version"]);
    assert.equal(v.code, 0, v.stderr);
    assert.equal(v.stdout, `${VERSION}\n`);
    const h = await cli(["--help"]);
    assert.equal(h.code, 0, h.stderr);
    assert.match(h.stdout, /^usage:\n {2}nearwire-transfer serve/);
    assert.match(h.stdout, /130 interrupted/);
  });

  it("a usage error exits 2 with the reason and the usage on stderr", async () => {
    for (const [args, reason] of [
      [["put", "a", "b", "--bogus"], /Unknown option '--bogus'/],
      [["put", "a", "b", "--codec", "yaml"], /--codec yaml is not one of json, msgpack/],
      [[], /no command given/],
    ] as const) {
      const r = await cli([...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, reason);
      assert.match(r.stderr, /\nusage:\n/);
      assert.equal(r.stdout, "");
    }
  });

  it("parseCli: every malformed command line is a usage error that says why", () => {
    for (const [args, reason] of [
      [["get", "a", "b", "--chunk-bytes", "lots"], /--chunk-bytes lots is not a whole number/],
      [["get", "a", "b", "--chunk-bytes", "0"], /--chunk-bytes 0 is not a whole number from 1/],
      [["status", "a", "--retries", "-1"], /--retries/],
      [["put", "a"], /put takes 2 argument\(s\), got 1/],
      [["serve"], /serve needs --root DIR/],
      [["status", "a", "--root", "r"], /--root is not an option of status/],
      [["fetch", "a"], /unknown command "fetch"/],
      [["serve", "--root", "r", "--durable", "sometimes"], /--durable sometimes is not one of/],
      [["put", "a", "b", "--durable", "none"], /--durable is not an option of put/],
      [["put", "a", "b", "--page-cache"], /--page-cache is not an option of put/],
      [["serve", "--root", "r", "--page-cache=yes"], /page-cache/],
    ] as const) {
      const inv = parseCli([...args], {});
      assert.equal(inv.command, "usage-error", args.join(" "));
      assert.ok(inv.command === "usage-error");
      assert.match(inv.message, reason);
    }
    assert.deepEqual(parseCli(["serve", "--root", "r", "--durable", "commit"], {}), {
      command: "serve",
      root: "r",
      durable: "commit",
      codec: "msgpack",
      address: "/tmp/nearwire-transfer.sock",
    });
    assert.deepEqual(parseCli(["get", "n", "f", "--retries", "2", "--codec", "raw"], {}), {
      command: "get",
      from: "n",
      to: "f",
      retries: 2,
      codec: "raw",
      address: "/tmp/nearwire-transfer.sock",
    });
    assert.deepEqual(parseCli(["get", "n", "f", "--page-cache"], {}), {
      command: "get",
      from: "n",
      to: "f",
      retries: 0,
      codec: "msgpack",
      address: "/tmp/nearwire-transfer.sock",
      pageCache: true,
    });
    assert.deepEqual(parseCli(["serve", "--root", "r", "--page-cache"], {}), {
      command: "serve",
      root: "r",
      codec: "msgpack",
      address: "/tmp/nearwire-transfer.sock",
      pageCache: true,
    });
  });

  it("serve of a missing root is NOT_FOUND, of a file INVALID_ARGUMENT: exit 1, not UNAVAILABLE", async () => {
    const missing = join(tmp.dir, "no-such-root");
    const r = await cli(["serve", "--root", missing, "--address", join(tmp.dir, "x.sock")]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`nearwire-transfer: NOT_FOUND: root "${missing}": no such file or directory`),
    );
    const file = join(tmp.dir, "a-file");
    writeFileSync(file, "x");
    const f = await cli(["serve", "--root", file, "--address", join(tmp.dir, "y.sock")]);
    assert.equal(f.code, 1, f.stderr);
    assert.match(f.stderr, new RegExp(`INVALID_ARGUMENT: root "${file}" is not a directory`));
  });

  it("put of a missing local file is NOT_FOUND at once, even with --retries", async () => {
    const missing = join(local, "no-such-file");
    const r = await cli(["put", missing, "x.bin", "--address", address, "--retries", "3"]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`NOT_FOUND: local file "${missing}": no such file or directory`),
    );
    assert.doesNotMatch(r.stderr, /UNAVAILABLE|retry/);
    const dir = await cli(["put", local, "x.bin", "--address", address]);
    assert.equal(dir.code, 1, dir.stderr);
    assert.match(dir.stderr, new RegExp(`INVALID_ARGUMENT: local file "${local}" is a directory`));
  });

  it("put of a missing local file is NOT_FOUND with no server running, too", async () => {
    const missing = join(local, "no-such-file");
    const nobody = join(local, "nobody-listens.sock");
    const r = await cli(["put", missing, "x.bin", "--address", nobody]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /NOT_FOUND: local file .*no such file or directory/);
    assert.doesNotMatch(r.stderr, /UNAVAILABLE/);
    // With the file there, the missing server is what fails: UNAVAILABLE.
    randomFile(join(local, "present.bin"), 10);
    const up = await cli(["put", join(local, "present.bin"), "x.bin", "--address", nobody]);
    assert.equal(up.code, 1, up.stderr);
    assert.match(up.stderr, /UNAVAILABLE: nothing listens/);
  });

  it("get of a missing name is NOT_FOUND and leaves no part file; a missing local dir is NOT_FOUND", async () => {
    const dest = join(local, "missing.dest");
    const r = await cli(["get", "no/such/name.bin", dest, "--address", address]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /nearwire-transfer: NOT_FOUND: "no\/such\/name.bin" not found/);
    assert.equal(existsSync(dest + DOWNLOAD_PART_SUFFIX), false, "no empty part file is left");
    assert.equal(existsSync(dest), false);

    randomFile(join(root, "here.bin"), 1000);
    const nowhere = join(local, "no-such-dir", "here.dest");
    const d = await cli(["get", "here.bin", nowhere, "--address", address]);
    assert.equal(d.code, 1, d.stderr);
    assert.match(
      d.stderr,
      new RegExp(`NOT_FOUND: download destination "${nowhere}": no such file or directory`),
    );
  });

  it("--retries waits longer before each reconnect (jittered), then exits 1 UNAVAILABLE", async () => {
    const r = await cli([
      "status",
      "x",
      "--address",
      join(tmp.dir, "nobody.sock"),
      "--retries",
      "3",
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /nearwire-transfer: UNAVAILABLE: /);
    const waits = [...r.stderr.matchAll(/retry (\d) of 3 in (\d+) ms/g)].map((m) => Number(m[2]));
    assert.equal(waits.length, 3, r.stderr);
    waits.forEach((ms, i) => {
      const step = RETRY_BASE_MS * 2 ** i;
      assert.ok(ms >= step / 2 && ms < step, `retry ${i + 1} waited ${ms} ms, step ${step}`);
    });
  });

  it("retryDelayMs doubles per retry, stays within [step / 2, step) and stops at RETRY_MAX_MS", () => {
    assert.equal(
      retryDelayMs(0, () => 0),
      RETRY_BASE_MS / 2,
    );
    assert.equal(
      retryDelayMs(0, () => 0.999999),
      RETRY_BASE_MS - 1,
    );
    assert.equal(
      retryDelayMs(3, () => 0),
      (RETRY_BASE_MS * 8) / 2,
    );
    assert.equal(
      retryDelayMs(40, () => 0),
      RETRY_MAX_MS / 2,
    );
    assert.ok(retryDelayMs(40, () => 0.999999) < RETRY_MAX_MS);
  });
});

describe("nearwire-transfer and Ctrl-C", () => {
  const tmp = tmpDir();
  const root = join(tmp.dir, "root");
  const local = join(tmp.dir, "local");
  const address = join(tmp.dir, "slow.sock");
  const codec = transferCodec("msgpack");
  const children: ChildProcess[] = [];
  let server: Server | undefined;
  let connection: ClientConnection | undefined;

  // The server takes 20 ms per chunk, so a 4 MiB transfer (64 chunks) is still running when
  // the test sends SIGINT.
  before(async () => {
    mkdirSync(root);
    mkdirSync(local);
    const handlers = createTransferHandlers({ root });
    server = createUdsTransport({ address }).createServer();
    server.addService(
      TransferService,
      {
        status: handlers.status,
        upload: (requests, ctx) =>
          handlers.upload(
            (async function* () {
              for await (const r of requests) {
                await sleep(20);
                yield r;
              }
            })(),
            ctx,
          ),
        download: async function* (req, ctx) {
          for await (const c of handlers.download(req, ctx)) {
            await sleep(20);
            yield c;
          }
        },
      },
      { codec },
    );
    await server.listen();
    connection = await createUdsTransport({ address }).connect();
  });
  after(async () => {
    for (const c of children)
      if (c.exitCode === null && c.signalCode === null && c.pid !== undefined) c.kill("SIGKILL");
    await connection?.close();
    await server?.close({ graceMs: 100 });
    tmp.cleanup();
  });

  /** Runs the CLI; sends it SIGINT (by pid) once its progress bar passes `atPercent`. */
  const run = (args: string[], atPercent?: number) =>
    new Promise<Exit & { interrupted: boolean }>((resolve) => {
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
      let interrupted = false;
      child.stdout.setEncoding("utf8").on("data", (s: string) => {
        stdout += s;
      });
      child.stderr.setEncoding("utf8").on("data", (s: string) => {
        stderr += s;
        const percents = [...stderr.matchAll(/\] +(\d+)%/g)].map((m) => Number(m[1]));
        if (atPercent !== undefined && !interrupted && Math.max(0, ...percents) >= atPercent) {
          interrupted = true;
          assert.ok(child.pid !== undefined);
          process.kill(child.pid, "SIGINT");
        }
      });
      child.once("exit", (code) => resolve({ code, stdout, stderr, interrupted }));
    });

  for (const command of ["put", "get"] as const) {
    it(`SIGINT during ${command} exits 130, says a rerun resumes; the rerun resumes`, async () => {
      const src = join(command === "put" ? local : root, `${command}.src`);
      const hex = randomFile(src, 4 * 1024 * 1024);
      const dest = join(local, `${command}.dest`);
      const args = command === "put" ? ["put", src, "put.bin"] : ["get", "get.src", dest];
      // put: past the 32-message credit window, so the server has taken chunks; get: early.
      const cut = await run(args, command === "put" ? 60 : 30);
      assert.ok(
        cut.interrupted,
        `the transfer ended before it could be interrupted: ${cut.stderr}`,
      );
      assert.equal(cut.code, 130, cut.stderr);
      assert.match(
        cut.stderr,
        /nearwire-transfer: interrupted; run the same command again to resume\n$/,
      );
      assert.equal(cut.stdout, "");
      if (command === "put") {
        assert.ok(connection);
        const client = createTransferClient({ connection, codec });
        const st = await waitIdle({ client }, "put.bin");
        assert.equal(st.committed, false);
        assert.ok(st.partialBytes > 0, `partial ${st.partialBytes}`);
      } else {
        assert.ok(existsSync(dest + DOWNLOAD_PART_SUFFIX), "the part file stays for the rerun");
      }
      const again = await run(args);
      assert.equal(again.code, 0, again.stderr);
      const resumed = /resumed-from (\d+) B/.exec(again.stdout);
      assert.ok(resumed, again.stdout);
      assert.ok(Number(resumed[1]) > 0, again.stdout);
      assert.match(again.stdout, new RegExp(`sha256 ${hex}`));
      assert.equal(sha256(command === "put" ? join(root, "put.bin") : dest), hex);
    });
  }
});
