import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { type ServerProcess, startServerProcess } from "@nearwire/conformance";
import { type ClientConnection, Code, type NearwireError, type Server } from "@nearwire/core";
import { createUdsTransport } from "@nearwire/uds";
import { transferCodec } from "../src/codecs/index.js";
import { createTransferClient, createTransferHandlers, TransferService } from "../src/index.js";
import { CROSS_PROCESS_LOCKS, lockUpload } from "../src/server/upload-lock.js";
import { sha256, tmpDir } from "./support/rig.js";

const CLI = fileURLToPath(new URL("../src/cli/cli.ts", import.meta.url));
const codec = transferCodec("msgpack");
const isAborted = (err: NearwireError) => err.code === Code.Aborted && err.reason === undefined;

// Server a runs in this process, server b in a child (the CLI); both serve one root.
describe("two server processes on one root", { skip: !CROSS_PROCESS_LOCKS }, () => {
  const tmp = tmpDir();
  const root = join(tmp.dir, "root");
  let serverA: Server | undefined;
  let serverB: ServerProcess | undefined;
  const connections: ClientConnection[] = [];
  const address = (which: "a" | "b") => join(tmp.dir, `${which}.sock`);
  const client = async (which: "a" | "b") => {
    const connection = await createUdsTransport({ address: address(which) }).connect();
    connections.push(connection);
    return createTransferClient({ connection, codec });
  };
  /**
   * An upload source that yields 128 KiB (the client holds one chunk back, so the first is
   * sent), then waits for `open()` before the rest.
   */
  const gated = (data: Uint8Array) => {
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    let sent!: () => void;
    const started = new Promise<void>((r) => {
      sent = r;
    });
    async function* source() {
      yield data.subarray(0, 131072);
      sent();
      await gate;
      yield data.subarray(131072);
    }
    return { source: source(), open, started };
  };

  before(async () => {
    mkdirSync(root);
    serverA = createUdsTransport({ address: address("a") }).createServer();
    serverA.addService(TransferService, createTransferHandlers({ root }), { codec });
    await serverA.listen();
    serverB = await startServerProcess(CLI, ["serve", "--root", root, "--address", address("b")], {
      readyPrefix: "serving",
    });
  });
  after(async () => {
    for (const c of connections) await c.close().catch(() => {});
    await serverA?.close({ graceMs: 100 });
    await serverB?.stop();
    tmp.cleanup();
  });

  it("an upload of a name on one server makes the other's ABORTED; bytes never interleave", async () => {
    const [a, b] = [await client("a"), await client("b")];
    const first = new Uint8Array(300_000).fill(1);
    const second = new Uint8Array(200_000).fill(2);
    const g = gated(first);
    const upA = a.upload(g.source, "x.bin", { sizeBytes: first.length });
    await g.started;
    let st = await b.status("x.bin");
    for (let i = 0; i < 200 && !st.active; i++) {
      await new Promise((r) => setTimeout(r, 5));
      st = await b.status("x.bin");
    }
    assert.equal(st.active, true, "server b sees server a's upload as active");
    await assert.rejects(
      b.upload([second], "x.bin", { sizeBytes: second.length, maxAttempts: 1 }),
      isAborted,
    );
    // Another name is not locked.
    assert.equal((await b.upload([second], "y.bin", { sizeBytes: second.length })).attempts, 1);
    g.open();
    await upA;
    assert.equal(sha256(join(root, "x.bin")), sha256(first));
    // Released: b may upload the name now.
    await b.upload([second], "x.bin", { sizeBytes: second.length });
    assert.equal(sha256(join(root, "x.bin")), sha256(second));
    assert.equal((await a.status("x.bin")).active, false);
  });

  it("a server killed with SIGKILL mid-upload leaves no stale lock: the other takes over at once", async () => {
    const b = await client("b");
    const data = new Uint8Array(400_000).map((_, i) => i & 0xff);
    const g = gated(data);
    const upB = b.upload(g.source, "k.bin", { sizeBytes: data.length });
    upB.catch(() => {});
    await g.started;
    const a = await client("a");
    let active = false;
    for (let i = 0; i < 200 && !active; i++) {
      active = (await a.status("k.bin")).active;
      if (!active) await new Promise((r) => setTimeout(r, 5));
    }
    assert.equal(active, true);
    await assert.rejects(a.upload([data], "k.bin", { sizeBytes: data.length }), isAborted);
    process.kill(serverB?.pid as number, "SIGKILL");
    await serverB?.stop();
    serverB = undefined;
    await assert.rejects(upB, (err: NearwireError) => err.code === Code.Unavailable);
    assert.equal((await a.status("k.bin")).active, false);
    const up = await a.upload([data], "k.bin", { sizeBytes: data.length });
    assert.equal(up.sha256, sha256(data));
    assert.equal(sha256(join(root, "k.bin")), sha256(data));
  });

  it("the lock itself: one holder per root and name, released on release()", async () => {
    const held = await lockUpload("test-root", "n");
    assert.ok(held);
    assert.equal(await lockUpload("test-root", "n"), undefined);
    const other = await lockUpload("test-root", "m");
    assert.ok(other);
    await held.release();
    const again = await lockUpload("test-root", "n");
    assert.ok(again);
    await again.release();
    await other.release();
  });
});
