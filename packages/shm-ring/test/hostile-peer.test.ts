import assert from "node:assert/strict";
import { closeSync, ftruncateSync, openSync } from "node:fs";
import { createServer, connect as netConnect, type Socket } from "node:net";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { type Channel, Code } from "@nearwire/core";
import { encodeHandshake, HandshakeReader } from "../src/control-socket.js";
import { createShmRingChannelProvider } from "../src/index.js";
import { ShmRingChannel } from "../src/subpath-channel.js";
import { HEADER_BYTES, segmentBytesFor } from "../src/subpath-ring.js";
import { attachSegment, createSegment, type Segment } from "../src/subpath-segment.js";
import {
  eventually,
  leakCheckedTempDir,
  openSegments,
  record,
  seqFrame,
  within,
} from "./support/leak-checks.js";
import { closedWith, type Peer, rssOf, spawnPeer, spawnScript } from "./support/spawn-peer.js";

// Attacks by a peer that holds the segment (PROTOCOL.md section 6): the victim fails only the
// attacker's connection, keeps serving others, answers its control pipe (it is not spinning),
// and exits by itself.
const tmp = leakCheckedTempDir("nw-shm-hostile-");
const FLOOD = fileURLToPath(new URL("./fixtures/flood.ts", import.meta.url));
const RING = 64 * 1024;
const MiB = 1024 * 1024;

let n = 0;

/** Handshakes by hand as a client: the socket, the offer and the segment mapped by us. */
async function rawClient(address: string): Promise<{
  socket: Socket;
  offer: Record<string, unknown>;
  segment: Segment;
  leftover: Buffer;
}> {
  const socket = netConnect(address);
  await new Promise((r) => socket.once("connect", r));
  const reader = new HandshakeReader(socket, 5000);
  socket.write(encodeHandshake({ magic: "nearwire-shm", layout: 1, pid: process.pid }));
  const offer = await reader.next();
  const segment = attachSegment(offer.pid as number, offer.fd as number, {
    ringBytes: offer.ringBytes as number,
    nonce: offer.nonce as string,
  });
  socket.write(encodeHandshake({ ready: true }));
  return { socket, offer, segment, leftover: reader.finish() };
}

/** Everything the peer sends on `socket` until it closes. */
function collect(socket: Socket): Promise<Buffer> {
  const parts: Buffer[] = [];
  socket.on("data", (d) => parts.push(d));
  return new Promise((resolve) => socket.on("close", () => resolve(Buffer.concat(parts))));
}

/** Publishes the 8-byte attack: a padding record of C − 8 bytes at offset 0 of ring `ring`. */
function writePaddingAtZero(segment: Segment, ring: 0 | 1): void {
  const at = HEADER_BYTES + ring * segment.ringBytes;
  new Uint8Array(segment.buffer)[at + 4] = 0x00;
  Atomics.store(new Int32Array(segment.buffer), at >> 2, 0x80000000 | (segment.ringBytes - 8) | 0);
}

/** One echo round trip on a fresh healthy client channel, then a clean close. */
async function healthyEcho(address: string): Promise<void> {
  const ch = await createShmRingChannelProvider({ address }).connect();
  await echo(ch, record(ch));
  await ch.close();
}

async function echo(ch: Channel, rec: ReturnType<typeof record>): Promise<void> {
  const before = rec.frames.length;
  ch.send(0x90, seqFrame(before, 64));
  await eventually(() => assert.equal(rec.frames.length, before + 1));
}

/** Stops a child and checks it exited by itself (stdin closed), not by the SIGKILL fallback. */
async function stopsByItself(peer: Peer): Promise<void> {
  await peer.stop();
  assert.equal(peer.child.signalCode, null, "exited by itself, not killed");
  assert.equal(peer.child.exitCode, 0);
}

describe("hostile peer: padding record at ring offset 0 (issue 10 item 1)", () => {
  for (const [wait, trigger] of [
    ["adaptive", "data doorbell"],
    ["spin", "data doorbell"],
    ["park", "clean close (drain at peer end)"],
  ] as const) {
    it(`server (${wait}), after a ${trigger}: DATA_LOSS malformed-frame for that connection only, others served`, async () => {
      const address = tmp.sock(`pad${n++}`);
      const server = await spawnPeer(["server", address, wait, String(RING), "echo"]);
      const attacker = await rawClient(address);
      const received = collect(attacker.socket);
      writePaddingAtZero(attacker.segment, 0);
      attacker.socket.write(Buffer.of(trigger === "data doorbell" ? 0x44 : 0x43));
      let closed: { code: number; reason?: string }[] = [];
      for (let i = 0; i < 100 && closed.length === 0; i++) {
        closed = await closedWith(server);
        if (closed.length === 0) await new Promise((r) => setTimeout(r, 20));
      }
      assert.deepEqual(closed, [{ code: Code.DataLoss, reason: "malformed-frame" }]);
      const bytes = await within(received, 5000, "server ends the attacker's socket");
      if (trigger === "data doorbell") {
        assert.equal(bytes[0], 0x47, "G with the error");
        const g = JSON.parse(bytes.subarray(3).toString()) as { code: number; reason: string };
        assert.equal(g.code, Code.DataLoss);
        assert.equal(g.reason, "malformed-frame");
      }
      attacker.segment.release();
      await healthyEcho(address);
      await healthyEcho(address);
      assert.equal((await closedWith(server)).length, 3);
      await stopsByItself(server);
    });
  }

  it("client: a server writing the padding record fails the client's channel with DATA_LOSS; the client is not spinning", async () => {
    const address = tmp.sock(`padc${n++}`);
    const segment = createSegment(RING);
    let fakeSocket: Socket | undefined;
    const received = new Promise<Buffer>((resolve) => {
      const fake = createServer((s) => {
        fakeSocket = s;
        const reader = new HandshakeReader(s, 5000);
        void reader.next().then(async () => {
          s.write(
            encodeHandshake({
              magic: "nearwire-shm",
              layout: 1,
              pid: process.pid,
              fd: segment.fd,
              ringBytes: RING,
              segmentBytes: segmentBytesFor(RING),
              maxPayloadBytes: RING / 2 - 16,
              nonce: segment.nonce,
            }),
          );
          await reader.next();
          reader.finish();
          segment.closeFd();
          const all = collect(s);
          writePaddingAtZero(segment, 1);
          s.write(Buffer.of(0x44));
          fake.close();
          resolve(await all);
        });
      });
      fake.listen(address);
    });
    const client = await spawnPeer(["client", address, "adaptive"]);
    const bytes = await within(received, 5000, "client ends the connection");
    assert.equal(bytes[0], 0x47);
    assert.equal(JSON.parse(bytes.subarray(3).toString()).code, Code.DataLoss);
    assert.deepEqual(await closedWith(client), [
      { code: Code.DataLoss, reason: "malformed-frame" },
    ]);
    fakeSocket?.destroy();
    segment.release();
    await stopsByItself(client);
  });
});

describe("hostile peer: truncating the segment (issue 10 item 2)", () => {
  it("a peer holding the memfd cannot shrink or grow it (EPERM), before and after ready; the server keeps serving", async () => {
    const address = tmp.sock(`trunc${n++}`);
    const server = await spawnPeer(["server", address, "adaptive", String(RING), "echo"]);
    const socket = netConnect(address);
    await new Promise((r) => socket.once("connect", r));
    const reader = new HandshakeReader(socket, 5000);
    socket.write(encodeHandshake({ magic: "nearwire-shm", layout: 1, pid: process.pid }));
    const offer = await reader.next();
    const fd = openSync(`/proc/${offer.pid}/fd/${offer.fd}`, "r+");
    const sizes = [0, 4096, segmentBytesFor(RING) - 4096, segmentBytesFor(RING) * 2];
    for (const size of sizes) assert.throws(() => ftruncateSync(fd, size), { code: "EPERM" });
    const segment = attachSegment(offer.pid as number, offer.fd as number, {
      ringBytes: RING,
      nonce: offer.nonce as string,
    });
    socket.write(encodeHandshake({ ready: true }));
    // The attacker's own channel works, and the server uses the segment, when it tries again.
    const ch = new ShmRingChannel({
      socket,
      segment,
      sendRing: 0,
      wait: "adaptive",
      spinUs: 50,
      peer: "attacker",
      leftover: reader.finish(),
      reads: reader.reads,
    });
    const rec = record(ch);
    await echo(ch, rec);
    for (const size of sizes) assert.throws(() => ftruncateSync(fd, size), { code: "EPERM" });
    closeSync(fd);
    await echo(ch, rec);
    await healthyEcho(address);
    await ch.close();
    assert.deepEqual(await closedWith(server), [{ code: 0 }, { code: 0 }]);
    await stopsByItself(server);
  });

  it("in this process too: the created memfd is sealed against ftruncate", () => {
    const seg = createSegment(4096);
    const fd = openSync(`/proc/self/fd/${seg.fd}`, "r+");
    assert.throws(() => ftruncateSync(fd, 0), { code: "EPERM" });
    closeSync(fd);
    seg.release();
  });
});

describe("hostile peer: handshake flood (issue 10 item 3)", () => {
  it("150 HELLO-only and 50 silent connections from another user: bounded RSS, a healthy client is served, all cleaned up", async (t) => {
    const address = `unix-abstract:nw-shm-hostile-${process.pid}-${n++}`;
    // Default 4 MiB rings: before the fix every HELLO committed an 8 MiB segment.
    const server = await spawnPeer(["server", address, "adaptive", String(4 * MiB), "echo"]);
    await healthyEcho(address);
    const rssBefore = await rssOf(server);
    const asOther = process.getuid?.() === 0 ? 65534 : undefined;
    const flood = spawnScript(
      FLOOD,
      [address, "150", "50"],
      asOther === undefined ? {} : { uid: asOther },
    );
    const first = JSON.parse(await flood.line(20_000)) as {
      offers: number;
      errors: Record<string, number>;
      openErrno: string | null;
    };
    const rssFlooded = await rssOf(server);
    await healthyEcho(address);
    const rssAfterHealthy = await rssOf(server);
    t.diagnostic(
      `server RSS: ${(rssBefore / MiB).toFixed(1)} MiB before, ${(rssFlooded / MiB).toFixed(1)} MiB with the flood pending, ${(rssAfterHealthy / MiB).toFixed(1)} MiB after a healthy client; first answers ${JSON.stringify(first)}`,
    );
    assert.ok(first.offers >= 64, `${first.offers} offers`);
    if (asOther !== undefined) assert.equal(first.openErrno, "EACCES", "another user cannot open");
    // 64 pending handshakes now hold a socket, a sealed memfd and one page each.
    assert.ok(
      rssFlooded - rssBefore < 32 * MiB,
      `RSS grew ${((rssFlooded - rssBefore) / MiB).toFixed(1)} MiB under the flood`,
    );
    // 200 flood connections + 1 healthy one, 64 slots: the 137 oldest were dropped with
    // RESOURCE_EXHAUSTED; the 63 left time out with DEADLINE_EXCEEDED (about 2 s by default).
    let report = { frames: {} as Record<string, number>, ended: 0 };
    for (let i = 0; i < 250 && report.ended < 200; i++) {
      flood.command("report");
      report = JSON.parse(await flood.line(5000));
      if (report.ended < 200) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(report.ended, 200, "the server ended every flood connection");
    assert.equal(report.frames[String(Code.ResourceExhausted)], 137);
    assert.equal(report.frames[String(Code.DeadlineExceeded)], 63);
    await eventually(() =>
      assert.deepEqual(openSegments(server.child.pid as number), { fds: [], maps: [] }),
    );
    await healthyEcho(address);
    assert.deepEqual(await closedWith(server), [{ code: 0 }, { code: 0 }, { code: 0 }]);
    await stopsByItself(flood);
    await stopsByItself(server);
  });

  it("closing the listener fails its pending handshakes and releases their segments", async () => {
    const address = tmp.sock(`close${n++}`);
    const listener = await createShmRingChannelProvider({ address }).listen(() => {});
    const socket = netConnect(address);
    await new Promise((r) => socket.once("connect", r));
    const reader = new HandshakeReader(socket, 5000);
    socket.write(encodeHandshake({ magic: "nearwire-shm", layout: 1, pid: process.pid }));
    await reader.next();
    assert.equal(openSegments().fds.length, 1);
    const refused = reader.next();
    await listener.close();
    await assert.rejects(refused, (e: { code: number }) => e.code === Code.Unavailable);
    reader.finish();
    socket.destroy();
    await eventually(() => assert.deepEqual(openSegments(), { fds: [], maps: [] }));
  });
});
