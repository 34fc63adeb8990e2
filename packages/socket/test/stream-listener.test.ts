import assert from "node:assert/strict";
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Code } from "@nearwire/core";
import { bindStreamListener, MAX_SOCKET_PATH_BYTES, type StreamListener } from "../src/index.js";
import {
  abstractName,
  assertCode,
  liveServer,
  rejection,
  staleSocket,
  tempDir,
} from "./support/sockets.js";

const tmp = tempDir();
after(() => assert.deepEqual(tmp.cleanup(), [], "files left in the test directory"));

/** A listener that answers every connection with "hi" and closes it. */
function bindHi(address: string, socketMode?: number): Promise<StreamListener> {
  return bindStreamListener(address, {
    onConnection: (s) => s.end("hi"),
    ...(socketMode === undefined ? {} : { socketMode }),
  });
}

/** Connects, reads until the server ends, returns the text. */
function fetchText(options: net.NetConnectOpts): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(options);
    let out = "";
    s.on("data", (d) => {
      out += d;
    });
    s.on("end", () => resolve(out));
    s.on("error", reject);
  });
}

describe("bindStreamListener: socket files", () => {
  it("binds, serves, reports the canonical address and removes the file on close", async () => {
    const path = tmp.path("basic.sock");
    const listener = await bindHi(`unix:${path}`);
    assert.equal(listener.address, path);
    assert.equal(listener.parsed.kind, "path");
    assert.equal(await fetchText({ path }), "hi");
    await listener.close();
    assert.equal(existsSync(path), false);
    assert.deepEqual(readdirSync(tmp.dir), [], "no temporary bind directory left");
  });

  it("removes a stale socket file (connect refused) and binds", async () => {
    const path = tmp.path("stale.sock");
    await staleSocket(path);
    const listener = await bindHi(path);
    assert.equal(await fetchText({ path }), "hi");
    await listener.close();
    assert.equal(existsSync(path), false);
  });

  it("a socket held by a live server (another process) → ALREADY_EXISTS address-in-use; it keeps working", async () => {
    const path = tmp.path("live.sock");
    const peer = await liveServer(path);
    try {
      assertCode(await rejection(bindHi(path)), Code.AlreadyExists, "address-in-use");
      assert.equal(await fetchText({ path }), "peer");
    } finally {
      await peer.stop();
    }
    assert.deepEqual(readdirSync(tmp.dir), []);
  });

  it("a file that is not a socket → FAILED_PRECONDITION and the file is untouched", async () => {
    const path = tmp.path("regular.sock");
    writeFileSync(path, "keep me");
    assertCode(await rejection(bindHi(path)), Code.FailedPrecondition);
    assert.equal(readFileSync(path, "utf8"), "keep me");
    assert.deepEqual(readdirSync(tmp.dir), ["regular.sock"]);
    await import("node:fs/promises").then((fs) => fs.unlink(path));
  });

  it("a missing directory → NOT_FOUND", async () => {
    assertCode(await rejection(bindHi(tmp.path("no-such-dir/x.sock"))), Code.NotFound);
  });

  it("socket file mode is 0600 by default and socketMode sets it", async () => {
    for (const [mode, want] of [
      [undefined, 0o600],
      [0o660, 0o660],
      [0o777, 0o777],
    ] as const) {
      const path = tmp.path(`mode-${want.toString(8)}.sock`);
      const listener = await bindHi(path, mode);
      assert.equal(lstatSync(path, { bigint: true }).mode & 0o777n, BigInt(want));
      await listener.close();
    }
    assertCode(await rejection(bindHi(tmp.path("bad.sock"), 0o1000)), Code.InvalidArgument);
  });

  it(`a path of exactly ${MAX_SOCKET_PATH_BYTES} bytes binds (through /proc/self/fd) and serves`, async () => {
    const base = join(tmp.dir, "p");
    const exact = base + "x".repeat(MAX_SOCKET_PATH_BYTES - Buffer.byteLength(base));
    assert.equal(Buffer.byteLength(exact), MAX_SOCKET_PATH_BYTES);
    const listener = await bindHi(exact);
    assert.equal(lstatSync(exact, { bigint: true }).mode & 0o777n, 0o600n);
    assert.equal(await fetchText({ path: exact }), "hi");
    await listener.close();
    assert.equal(existsSync(exact), false);
    assertCode(await rejection(bindHi(`${exact}x`)), Code.InvalidArgument, "path-too-long");
  });

  it("close removes the file only if it is still ours", async () => {
    const path = tmp.path("replaced.sock");
    const first = await bindHi(path);
    await import("node:fs/promises").then((fs) => fs.unlink(path));
    const second = await bindHi(path);
    await first.close();
    assert.equal(await fetchText({ path }), "hi", "the second listener's file survived");
    await second.close();
    assert.equal(existsSync(path), false);
  });

  it("closing keeps accepted sockets open", async () => {
    const path = tmp.path("keep.sock");
    const accepted: net.Socket[] = [];
    const listener = await bindStreamListener(path, {
      onConnection: (s) => {
        accepted.push(s);
        s.on("data", (d) => s.write(d));
      },
    });
    const client = net.connect({ path });
    await new Promise((r) => client.once("connect", r));
    await listener.close();
    const echoed = new Promise<string>((r) => client.once("data", (d) => r(String(d))));
    client.write("still here");
    assert.equal(await echoed, "still here");
    client.destroy();
    for (const s of accepted) s.destroy();
    assert.equal(existsSync(path), false);
  });

  it("backlog: accepted, and a bad value is INVALID_ARGUMENT", async () => {
    const listener = await bindStreamListener(tmp.path("backlog.sock"), {
      onConnection: (s) => s.end(),
      backlog: 1,
    });
    await listener.close();
    assertCode(
      await rejection(
        bindStreamListener(tmp.path("bad-backlog.sock"), { onConnection() {}, backlog: 0 }),
      ),
      Code.InvalidArgument,
    );
  });
});

describe("bindStreamListener: abstract names and TCP", () => {
  it("abstract name (@name or unix-abstract:name): serves; a second bind → ALREADY_EXISTS", async () => {
    const name = abstractName();
    const at = `@${name.slice("unix-abstract:".length)}`;
    const listener = await bindHi(at);
    assert.equal(listener.address, name);
    assert.equal(await fetchText({ path: `\0${name.slice("unix-abstract:".length)}` }), "hi");
    assertCode(await rejection(bindHi(name)), Code.AlreadyExists, "address-in-use");
    await listener.close();
    const again = await bindHi(name);
    await again.close();
  });

  it("tcp: port 0 reports the real port as tcp:host:port; port in use → ALREADY_EXISTS", async () => {
    const listener = await bindHi("127.0.0.1:0");
    const m = /^tcp:127\.0\.0\.1:(\d+)$/.exec(listener.address);
    assert.ok(m !== null && Number(m[1]) > 0, listener.address);
    assert.equal(await fetchText({ host: "127.0.0.1", port: Number(m[1]) }), "hi");
    assertCode(await rejection(bindHi(listener.address)), Code.AlreadyExists, "address-in-use");
    await listener.close();
  });
});
