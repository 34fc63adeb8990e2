import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { type FSWatcher, mkdirSync, mkdtempSync, rmSync, watch } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Code, jsonCodec, type Peer } from "@nearwire/core";
import { createShmRingTransport } from "../src/index.js";
import { Whoami } from "./fixtures/whoami-client.js";

const NOBODY = 65534;
const dir = mkdtempSync(join(tmpdir(), "nw-shm-peer-"));
let watcher: FSWatcher | undefined;
after(() => {
  watcher?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the whoami client in a child process (as `uid` when given) and returns its JSON line. */
function runClient(address: string, uid?: number): Promise<Record<string, unknown>> {
  const file = fileURLToPath(new URL("fixtures/whoami-client.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", file, address], {
    stdio: ["ignore", "pipe", "inherit"],
    // No tsx cache for another uid: it would leave a directory of that user in /tmp.
    env: { ...process.env, ...(uid === undefined ? {} : { TSX_DISABLE_CACHE: "1" }) },
    ...(uid === undefined ? {} : { uid, gid: uid }),
  });
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line === undefined) reject(new Error(`whoami-client exited ${code}`));
      else resolve(JSON.parse(line) as Record<string, unknown>);
    });
  });
}

test("allowUids [0]: nobody is refused PERMISSION_DENIED before a segment exists; root is served with its SO_PEERCRED", async () => {
  // Segments go to shmDir here, so that creating one is a file event we can watch for.
  const shmDir = join(dir, "segments");
  mkdirSync(shmDir);
  let segments = 0;
  watcher = watch(shmDir, () => segments++);
  const server = createShmRingTransport({
    address: `unix-abstract:nearwire-shm-peer-${process.pid}`,
    ringBytes: 64 * 1024,
    shmDir,
    allowUids: [0],
  }).createServer();
  server.addService(Whoami, { who: (_req, ctx) => ({ ...ctx.peer }) }, { codec: jsonCodec });
  await server.listen();
  try {
    const stranger = await runClient(server.address, NOBODY);
    assert.equal(stranger.uid, NOBODY);
    assert.equal(stranger.code, Code.PermissionDenied);
    await new Promise((resolve) => setTimeout(resolve, 50)); // let fs events arrive
    assert.equal(segments, 0);
    const root = await runClient(server.address);
    const reply = root.reply as Peer;
    assert.equal(reply.uid, 0);
    assert.equal(reply.pid, root.pid);
    assert.ok(segments > 0, "the served client's segment was seen being created");
  } finally {
    await server.close({ graceMs: 0 });
  }
});
