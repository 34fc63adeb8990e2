import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer, connect as netConnect, type Socket } from "node:net";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { type Channel, Code, type NearwireError } from "@nearwire/core";
import { encodeHandshake, HandshakeReader } from "../src/control-socket.js";
import { createShmRingChannelProvider } from "../src/index.js";
import { HEADER_BYTES } from "../src/subpath-ring.js";
import { attachSegment, createSegment } from "../src/subpath-segment.js";
import {
  eventually,
  leakCheckedTempDir,
  openSegments,
  record,
  seqFrame,
  within,
} from "./support/leak-checks.js";
import { spawnPeer } from "./support/spawn-peer.js";

const tmp = leakCheckedTempDir("nw-shm-fault-");

let n = 0;
const abstractName = () => `unix-abstract:nw-shm-test-${process.pid}-${n++}`;

/** An in-process server recording its channels; `echo` makes every channel echo. */
async function inProcessServer(
  options: {
    address?: string;
    wait?: "spin" | "park" | "adaptive";
    shmDir?: string;
    acceptUnsealedSegments?: boolean;
    ringBytes?: number;
  } = {},
) {
  const address = options.address ?? tmp.sock(`f${n++}`);
  const channels: { ch: Channel; closed: Promise<NearwireError | undefined>; frames: number }[] =
    [];
  const provider = createShmRingChannelProvider({ ...options, address });
  const listener = await provider.listen((ch) => {
    const rec = record(ch);
    const entry = { ch, closed: rec.closed, frames: 0 };
    rec.onFrame = (type, payload) => {
      entry.frames++;
      if (!ch.closed) ch.send(type, payload);
    };
    channels.push(entry);
  });
  return { address, provider, listener, channels };
}

async function echoOnce(ch: Channel, rec: ReturnType<typeof record>, seq: number): Promise<void> {
  const before = rec.frames.length;
  ch.send(0x81, seqFrame(seq, 64));
  await eventually(() => assert.equal(rec.frames.length, before + 1));
}

/** Connects a raw socket and reads the server's handshake offer. */
async function rawHello(
  address: string,
  layout = 1,
): Promise<{ socket: Socket; reader: HandshakeReader; offer: Promise<Record<string, unknown>> }> {
  const socket = netConnect(address);
  await new Promise((r) => socket.once("connect", r));
  const reader = new HandshakeReader(socket, 5000);
  socket.write(encodeHandshake({ magic: "nearwire-shm", layout, pid: process.pid }));
  return { socket, reader, offer: reader.next() };
}

describe("faults", () => {
  it("closes a channel with DATA_LOSS on a corrupt record; other channels keep working", async () => {
    const srv = await inProcessServer({ wait: "park" });
    const good = await srv.provider.connect();
    const goodRec = record(good);
    const { socket, reader, offer } = await rawHello(srv.address);
    const o = await offer;
    const seg = attachSegment(o.pid as number, o.fd as number, {
      ringBytes: o.ringBytes as number,
      nonce: o.nonce as string,
    });
    socket.write(encodeHandshake({ ready: true }));
    reader.finish();
    const goaway = new Promise<Buffer>((resolve) => {
      const parts: Buffer[] = [];
      socket.on("data", (d) => parts.push(d));
      socket.on("close", () => resolve(Buffer.concat(parts)));
    });
    await eventually(() => assert.equal(srv.channels.length, 2));
    new Uint8Array(seg.buffer)[HEADER_BYTES + 4] = 0x80;
    Atomics.store(new Int32Array(seg.buffer), HEADER_BYTES >> 2, 0x80000000 | 0x7ffffff0 | 0);
    socket.write(Buffer.of(0x44));
    const err = await within(
      (srv.channels[1] as { closed: Promise<NearwireError | undefined> }).closed,
      5000,
      "server close",
    );
    assert.equal(err?.code, Code.DataLoss);
    assert.equal(err?.reason, "malformed-frame");
    const g = await within(goaway, 5000, "goaway");
    assert.equal(g[0], 0x47);
    assert.equal(JSON.parse(g.subarray(3).toString()).code, Code.DataLoss);
    seg.release();
    await echoOnce(good, goodRec, 1);
    await good.close();
    await srv.listener.close();
  });

  it("refuses a client of another layout version, and serves the next one", async () => {
    const srv = await inProcessServer();
    const { socket, offer } = await rawHello(srv.address, 2);
    await assert.rejects(
      offer,
      (e: NearwireError) => e.code === Code.FailedPrecondition && e.reason === "layout-mismatch",
    );
    socket.destroy();
    const ch = await srv.provider.connect();
    await echoOnce(ch, record(ch), 0);
    await ch.close();
    await srv.listener.close();
  });

  it("refuses a segment whose header has another layout version", async () => {
    const address = tmp.sock("fake");
    const seg = createSegment(4096);
    new DataView(seg.buffer).setUint32(4, 2, true);
    const refusal = new Promise<Record<string, unknown> | NearwireError>((resolve) => {
      const fake = createServer((s) => {
        const reader = new HandshakeReader(s, 5000);
        reader.next().then(() => {
          s.write(
            encodeHandshake({
              magic: "nearwire-shm",
              layout: 1,
              pid: process.pid,
              fd: seg.fd,
              ringBytes: 4096,
              nonce: seg.nonce,
            }),
          );
          reader.next().then(resolve, resolve);
        });
      });
      fake.listen(address);
      after(() => fake.close());
    });
    await assert.rejects(
      createShmRingChannelProvider({ address }).connect(),
      (e: NearwireError) =>
        e.code === Code.FailedPrecondition &&
        e.reason === "layout-mismatch" &&
        /2 != expected 1/.test(e.message),
    );
    const r = await refusal;
    assert.equal((r as NearwireError).reason, "layout-mismatch", "server side got the error frame");
    seg.release();
  });

  it("releases the segment of a client that vanishes mid-handshake", async () => {
    const srv = await inProcessServer();
    const { socket, offer } = await rawHello(srv.address);
    await offer;
    assert.equal(openSegments().fds.length, 1, "server holds the segment fd until ready");
    socket.destroy();
    await eventually(() => assert.deepEqual(openSegments(), { fds: [], maps: [] }));
    await srv.listener.close();
  });

  it("fails to import without the addon: FAILED_PRECONDITION not-built", () => {
    const probe = fileURLToPath(new URL("./fixtures/import-probe.ts", import.meta.url));
    const run = (env: NodeJS.ProcessEnv) =>
      JSON.parse(
        execFileSync(process.execPath, ["--import", "tsx", probe], { env, encoding: "utf8" }),
      );
    assert.deepEqual(run({ ...process.env, NEARWIRE_SHM_ADDON: join(tmp.dir, "missing.node") }), {
      ok: false,
      name: "NearwireError",
      code: Code.FailedPrecondition,
      reason: "not-built",
    });
    assert.deepEqual(run(process.env), { ok: true });
  });

  it("reports an unwritable segment directory as PERMISSION_DENIED to the client", async () => {
    const srv = await inProcessServer({ shmDir: "/sys" });
    await assert.rejects(
      srv.provider.connect(),
      (e: NearwireError) => e.code === Code.PermissionDenied,
    );
    await srv.listener.close();
  });

  it("reports a full tmpfs as RESOURCE_EXHAUSTED, and never leaves a name in it", async (t) => {
    const mnt = join(tmp.dir, "mnt");
    mkdirSync(mnt);
    const mounted =
      spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", mnt]).status === 0;
    try {
      if (!mounted) return t.skip("cannot mount a tmpfs here (not root?)");
      const small = await inProcessServer({
        shmDir: mnt,
        ringBytes: 4096,
        acceptUnsealedSegments: true,
      });
      const ch = await small.provider.connect();
      assert.deepEqual(readdirSync(mnt), [], "segment file unlinked at once");
      await echoOnce(ch, record(ch), 0);
      await ch.close();
      await small.listener.close();
      const big = await inProcessServer({ shmDir: mnt, acceptUnsealedSegments: true });
      await assert.rejects(
        big.provider.connect(),
        (e: NearwireError) => e.code === Code.ResourceExhausted,
      );
      await big.listener.close();
      assert.deepEqual(readdirSync(mnt), []);
    } finally {
      if (mounted) execFileSync("umount", [mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  });

  it("closes with UNAVAILABLE peer-closed when a client is SIGKILLed; other clients keep working", async () => {
    const srv = await inProcessServer({ wait: "adaptive" });
    const a = await spawnPeer(["client", srv.address, "spin"]);
    const b = await spawnPeer(["client", srv.address, "adaptive"]);
    await eventually(() => assert.equal(srv.channels.length, 2));
    const [ca, cb] = srv.channels as [(typeof srv.channels)[0], (typeof srv.channels)[0]];
    a.child.kill("SIGKILL");
    const err = await within(ca.closed, 3000, "UNAVAILABLE after SIGKILL");
    assert.equal(err?.code, Code.Unavailable);
    assert.equal(err?.reason, "peer-closed");
    assert.throws(
      () => ca.ch.send(0x81, new Uint8Array(1)),
      (e: NearwireError) => e.code === Code.Unavailable,
    );
    assert.equal(cb.ch.closed, false);
    await b.stop();
    assert.equal(await within(cb.closed, 5000, "clean close"), undefined);
    await srv.listener.close();
  });

  it("closes with UNAVAILABLE when the server is SIGKILLed mid-stream", async () => {
    const address = abstractName();
    const peer = await spawnPeer(["server", address, "spin", String(64 * 1024), "echo"]);
    const ch = await createShmRingChannelProvider({ address, wait: "spin" }).connect();
    const rec = record(ch);
    rec.onFrame = () => {};
    for (let i = 0; i < 2000; i++) if (!ch.send(0x81, seqFrame(i, 200))) await ch.drained();
    peer.child.kill("SIGKILL");
    const err = await within(rec.closed, 3000, "UNAVAILABLE after SIGKILL");
    assert.equal(err?.code, Code.Unavailable);
    await assert.rejects(
      createShmRingChannelProvider({ address }).connect(),
      (e: NearwireError) => e.code === Code.Unavailable,
    );
  });

  it("tells the peer the code of close(error), and delivers frames sent before a clean close", async () => {
    const srv = await inProcessServer();
    const ch = await srv.provider.connect();
    const rec = record(ch);
    rec.onFrame = () => {};
    await eventually(() => assert.equal(srv.channels.length, 1));
    const sc = srv.channels[0] as (typeof srv.channels)[0];
    await ch.close(
      new (await import("@nearwire/core")).NearwireError(Code.ResourceExhausted, "bye"),
    );
    assert.equal((await sc.closed)?.code, Code.ResourceExhausted);
    assert.equal((await rec.closed)?.code, Code.ResourceExhausted);

    const ch2 = await srv.provider.connect();
    await eventually(() => assert.equal(srv.channels.length, 2));
    const server2 = srv.channels[1] as (typeof srv.channels)[0];
    server2.ch.pause();
    record(ch2);
    for (let i = 0; i < 100; i++) ch2.send(0x90, seqFrame(i, 8));
    const closing = ch2.close();
    server2.ch.resume();
    await closing;
    assert.equal(await within(server2.closed, 5000, "server side clean close"), undefined);
    assert.equal(server2.frames, 100);
    await srv.listener.close();
  });

  it("applies the uds listener rules: live address, stale file, path length, nobody listening", async () => {
    const address = tmp.sock("live");
    const srv = await inProcessServer({ address });
    await assert.rejects(
      createShmRingChannelProvider({ address }).listen(() => {}),
      (e: NearwireError) => e.code === Code.AlreadyExists && e.reason === "address-in-use",
    );
    const stale = tmp.sock("stale");
    const killed = await spawnPeer(["server", stale, "park", "4096", "echo"]);
    killed.child.kill("SIGKILL");
    await new Promise((r) => killed.child.once("exit", r));
    assert.ok(statSync(stale).isSocket(), "a killed server leaves its socket file");
    const again = await createShmRingChannelProvider({ address: stale }).listen(() => {});
    await again.close();
    assert.throws(
      () => createShmRingChannelProvider({ address: `/tmp/${"x".repeat(120)}` }),
      (e: NearwireError) => e.code === Code.InvalidArgument && e.reason === "path-too-long",
    );
    await assert.rejects(
      createShmRingChannelProvider({ address: tmp.sock("nobody") }).connect(),
      (e: NearwireError) => e.code === Code.Unavailable,
    );
    await srv.listener.close();
  });
});
