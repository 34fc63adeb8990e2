import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, lstatSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Code } from "@nearwire/core";
import { bindStreamListener, createUdsChannelProvider, MAX_UNIX_PATH_BYTES } from "../src/index.js";
import { abstractName, assertCode, record, rejection, spawnPeer, tempDir } from "./helpers.js";

const tmp = tempDir();
after(() => tmp.cleanup());

/** Leaves a socket file nobody listens on: a child binds it and dies by SIGKILL. */
async function staleSocket(path: string): Promise<void> {
  const code = `require("net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"))`;
  const child = spawn(process.execPath, ["-e", code], { stdio: "ignore" });
  await new Promise((r) => child.once("exit", r));
  assert.ok(lstatSync(path).isSocket(), "stale socket file left behind");
}

async function roundTrip(address: string): Promise<void> {
  const channel = await createUdsChannelProvider({ address }).connect();
  const rec = record(channel);
  channel.send(0x84, new Uint8Array(0));
  await rec.until(() => rec.frames.length === 1, 5000, "reply");
  await channel.close();
}

describe("listener", () => {
  it("removes a stale socket file (connect refused) and binds", async () => {
    const path = tmp.path("stale.sock");
    await staleSocket(path);
    const provider = createUdsChannelProvider({ address: path });
    const listener = await provider.listen((c) => record(c));
    const ch = await provider.connect();
    await ch.close();
    await listener.close();
    assert.equal(existsSync(path), false);
  });

  it("a socket held by a live server (another process) → ALREADY_EXISTS address-in-use; it keeps working", async () => {
    const path = tmp.path("live.sock");
    const peer = await spawnPeer(path);
    try {
      const err = await rejection(createUdsChannelProvider({ address: path }).listen(() => {}));
      assertCode(err, Code.AlreadyExists, "address-in-use");
      assert.ok(lstatSync(path).isSocket());
      await roundTrip(path);
    } finally {
      await peer.stop();
    }
    assert.equal(existsSync(path), false, "the peer removed its socket file on close");
  });

  it("a file that is not a socket → FAILED_PRECONDITION and the file is untouched", async () => {
    const path = tmp.path("regular.sock");
    writeFileSync(path, "keep me");
    assertCode(
      await rejection(createUdsChannelProvider({ address: path }).listen(() => {})),
      Code.FailedPrecondition,
    );
    assert.equal(readFileSync(path, "utf8"), "keep me");
  });

  it("socket file mode is 0600 by default and socketMode sets it; the file goes on close", async () => {
    for (const [mode, want] of [
      [undefined, 0o600],
      [0o660, 0o660],
    ] as const) {
      const path = tmp.path(`mode-${want.toString(8)}.sock`);
      const opts = mode === undefined ? { address: path } : { address: path, socketMode: mode };
      const listener = await createUdsChannelProvider(opts).listen(() => {});
      assert.equal(lstatSync(path).mode & 0o777, want);
      assert.equal(listener.address, path);
      await listener.close();
      assert.equal(existsSync(path), false);
    }
  });

  it(`a path of ${MAX_UNIX_PATH_BYTES} bytes works; one more byte → INVALID_ARGUMENT path-too-long`, async () => {
    const base = join(tmp.dir, "p");
    const exact = base + "x".repeat(MAX_UNIX_PATH_BYTES - Buffer.byteLength(base));
    assert.equal(Buffer.byteLength(exact), MAX_UNIX_PATH_BYTES);
    const provider = createUdsChannelProvider({ address: exact });
    const listener = await provider.listen((c) => record(c));
    await (await provider.connect()).close();
    await listener.close();
    const tooLong = `${exact}x`;
    assert.throws(
      () => createUdsChannelProvider({ address: tooLong }),
      (e: { code: number; reason: string }) =>
        e.code === Code.InvalidArgument && e.reason === "path-too-long",
    );
    await assert.rejects(
      bindStreamListener(tooLong, { onConnection() {} }),
      (e: { reason: string }) => e.reason === "path-too-long",
    );
  });

  it("backlog option: accepted, and a bad value is rejected", async () => {
    const path = tmp.path("backlog.sock");
    const provider = createUdsChannelProvider({ address: path, backlog: 1 });
    const listener = await provider.listen((c) => record(c));
    const a = await provider.connect();
    const b = await provider.connect();
    await Promise.all([a.close(), b.close()]);
    await listener.close();
    await assert.rejects(
      bindStreamListener(tmp.path("bad-backlog.sock"), { onConnection() {}, backlog: 0 }),
      (e: { code: number }) => e.code === Code.InvalidArgument,
    );
  });

  it("closing the listener keeps accepted channels open", async () => {
    const path = tmp.path("keep.sock");
    const provider = createUdsChannelProvider({ address: path });
    const accepted: import("@nearwire/core").Channel[] = [];
    const listener = await provider.listen((c) => {
      accepted.push(c);
      c.start({ onFrame: (t, p) => c.send(t, p), onClose() {} });
    });
    const client = await provider.connect();
    const rec = record(client);
    await listener.close();
    assert.equal(existsSync(path), false);
    client.send(0x80, new Uint8Array([5]));
    await rec.until(() => rec.frames.length === 1, 5000, "echo after listener close");
    assertCode(await rejection(provider.connect()), Code.Unavailable);
    await client.close();
    await Promise.all(accepted.map((c) => c.close()));
  });

  it("abstract name: listen, connect, address in use", async () => {
    const name = abstractName();
    const provider = createUdsChannelProvider({ address: name });
    assert.equal(provider.name, "uds");
    const listener = await provider.listen((c) =>
      c.start({ onFrame: (t, p) => c.send(t, p), onClose() {} }),
    );
    assert.equal(listener.address, name);
    assertCode(
      await rejection(createUdsChannelProvider({ address: name }).listen(() => {})),
      Code.AlreadyExists,
      "address-in-use",
    );
    const alt = `@${name.slice("unix-abstract:".length)}`;
    const ch = await createUdsChannelProvider({ address: alt }).connect();
    const rec = record(ch);
    ch.send(0x80, new Uint8Array([1]));
    await rec.until(() => rec.frames.length === 1, 5000, "echo");
    await ch.close();
    await listener.close();
  });

  it("tcp: port 0 reports the real port; port in use → ALREADY_EXISTS address-in-use", async () => {
    const provider = createUdsChannelProvider({ address: "tcp:127.0.0.1:0" });
    assert.equal(provider.name, "tcp");
    const listener = await provider.listen((c) =>
      c.start({ onFrame: (t, p) => c.send(t, p), onClose() {} }),
    );
    const m = /^tcp:127\.0\.0\.1:(\d+)$/.exec(listener.address);
    assert.ok(m !== null && Number(m[1]) > 0, listener.address);
    assertCode(
      await rejection(createUdsChannelProvider({ address: listener.address }).listen(() => {})),
      Code.AlreadyExists,
      "address-in-use",
    );
    const bare = listener.address.slice(4); // host:port form
    const ch = await createUdsChannelProvider({ address: bare }).connect();
    assert.equal(ch.peer, listener.address);
    const rec = record(ch);
    ch.send(0x80, new Uint8Array([1]));
    await rec.until(() => rec.frames.length === 1, 5000, "echo");
    await ch.close();
    await listener.close();
  });

  it("bindStreamListener hands raw sockets over (the shm-ring control socket reuses it)", async () => {
    const path = tmp.path("raw.sock");
    const listener = await bindStreamListener(path, { onConnection: (s) => s.end("hi") });
    assert.equal(listener.parsed.kind, "path");
    const got = await new Promise<string>((resolve, reject) => {
      const s = net.connect(path);
      let out = "";
      s.on("data", (d) => {
        out += d;
      });
      s.on("end", () => resolve(out));
      s.on("error", reject);
    });
    assert.equal(got, "hi");
    await listener.close();
    assert.equal(existsSync(path), false);
  });
});
