import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Code, NearwireError } from "@nearwire/core";
import { createUdsChannelProvider } from "../src/index.js";
import {
  abstractName,
  assertCode,
  readU32,
  record,
  rejection,
  spawnPeer,
  tempDir,
  u32,
} from "./helpers.js";

const FRAMES = 100_000;
const tmp = tempDir();
after(() => tmp.cleanup());

const kinds: [string, () => string][] = [
  ["path", () => tmp.path("order.sock")],
  ["abstract", abstractName],
  ["tcp", () => "tcp:127.0.0.1:0"],
];

for (const [kind, address] of kinds) {
  describe(`channel over ${kind} (peer in a child process)`, () => {
    it(`${FRAMES} sequence frames each way arrive in order, none lost`, async () => {
      const peer = await spawnPeer(address());
      try {
        const provider = createUdsChannelProvider({ address: peer.address });
        assert.equal(provider.name, kind === "tcp" ? "tcp" : "uds");
        const channel = await provider.connect();
        assert.equal(channel.transientPayloads, false);
        assert.equal(channel.maxPayloadBytes, 4 * 1024 * 1024);
        let expected = 0;
        let gaps = 0;
        let peerReceived = -1;
        const rec = record(channel);
        const onFrame = rec.onFrame.bind(rec);
        rec.onFrame = (type, payload) => {
          if (type === 0x80) {
            if (readU32(payload) !== expected) gaps++;
            expected++;
          } else onFrame(type, payload);
        };
        channel.send(0x81, u32(FRAMES)); // ask the peer to stream FRAMES back
        const payload = new Uint8Array(64);
        const view = new DataView(payload.buffer);
        for (let i = 0; i < FRAMES; i++) {
          view.setUint32(0, i);
          if (!channel.send(0x80, payload)) await channel.drained();
        }
        channel.send(0x84, new Uint8Array(0));
        await rec.until(
          () => rec.frames.some((f) => f.type === 0x85) && rec.frames.some((f) => f.type === 0x82),
          60_000,
          "reports",
        );
        peerReceived = readU32(
          (rec.frames.find((f) => f.type === 0x85) as { payload: Uint8Array }).payload,
        );
        assert.equal(
          rec.frames.find((f) => f.type === 0x8f),
          undefined,
          "peer saw a gap",
        );
        assert.equal(peerReceived, FRAMES);
        assert.equal(gaps, 0);
        assert.equal(expected, FRAMES);
        await channel.close();
        assert.equal(await rec.closed(), undefined);
        assert.equal(rec.closeCount, 1);
        assert.equal(channel.closed, true);
        assertCode(
          (() => {
            try {
              channel.send(0x80, payload);
            } catch (e) {
              return e;
            }
          })(),
          Code.Unavailable,
        );
      } finally {
        assert.equal(await peer.stop(), 0);
      }
    });
  });
}

describe("channel lifecycle", () => {
  let peer: Awaited<ReturnType<typeof spawnPeer>>;
  before(async () => {
    peer = await spawnPeer(tmp.path("life.sock"));
  });
  after(async () => {
    await peer.stop();
  });

  it("peer killed with SIGKILL → onClose UNAVAILABLE peer-closed, once", async () => {
    const victim = await spawnPeer(abstractName());
    const channel = await createUdsChannelProvider({ address: victim.address }).connect();
    const rec = record(channel);
    channel.send(0x84, new Uint8Array(0));
    await rec.until(() => rec.frames.length === 1, 5000, "reply");
    victim.child.kill("SIGKILL");
    const err = await rec.closed(5000);
    assertCode(err, Code.Unavailable, "peer-closed");
    await victim.stop();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(rec.closeCount, 1);
    assert.equal(channel.closed, true);
  });

  it("a large payload (1 MiB, written without copying) and the size limit", async () => {
    const channel = await createUdsChannelProvider({
      address: peer.address,
      maxFrameBytes: 2 * 1024 * 1024,
    }).connect();
    const rec = record(channel);
    // Peer accepts 4 MiB, we accept 2 MiB: the channel limit is the smaller one.
    assert.equal(channel.maxPayloadBytes, 2 * 1024 * 1024);
    const big = new Uint8Array(1024 * 1024);
    new DataView(big.buffer).setUint32(0, 0);
    channel.send(0x80, big);
    channel.send(0x80, u32(1, 100));
    channel.send(0x84, new Uint8Array(0));
    await rec.until(() => rec.frames.length === 1, 10_000, "count");
    assert.equal(readU32((rec.frames[0] as { payload: Uint8Array }).payload), 2);
    assert.throws(
      () => channel.send(0x80, new Uint8Array(2 * 1024 * 1024 + 1)),
      (e: NearwireError) => e.code === Code.ResourceExhausted && e.reason === "frame-too-large",
    );
    assert.throws(
      () => channel.send(0x05, new Uint8Array(0)),
      (e: NearwireError) => e.code === Code.InvalidArgument,
    );
    // Still usable after refused sends.
    channel.send(0x84, new Uint8Array(0));
    await rec.until(() => rec.frames.length === 2, 5000, "second count");
    await channel.close();
    assert.equal(await rec.closed(), undefined);
  });

  it("close(err) sends GOAWAY: the peer's channel ends with that code", async () => {
    const channel = await createUdsChannelProvider({ address: peer.address }).connect();
    const rec = record(channel);
    await channel.close(new NearwireError(Code.Aborted, "test abort"));
    assertCode(await rec.closed(), Code.Aborted);
    // The peer keeps serving others.
    const other = await createUdsChannelProvider({ address: peer.address }).connect();
    const rec2 = record(other);
    other.send(0x84, new Uint8Array(0));
    await rec2.until(() => rec2.frames.length === 1, 5000, "reply");
    await other.close();
  });

  for (const hwm of [256 * 1024, 2048]) {
    it(`backpressure (highWaterMarkBytes ${hwm}): a paused peer makes send return false; drained() waits; nothing is lost`, async () => {
      const channel = await createUdsChannelProvider({
        address: peer.address,
        highWaterMarkBytes: hwm,
      }).connect();
      const rec = record(channel);
      channel.send(0x83, new Uint8Array(0)); // peer pauses this channel
      const payload = new Uint8Array(1024);
      const view = new DataView(payload.buffer);
      let sent = 0;
      let stalled = false;
      const memBefore = process.memoryUsage().arrayBuffers;
      // Bounded: an implementation that never pushes back would hit the cap and fail below.
      while (sent < 200_000) {
        view.setUint32(0, sent);
        const ok = channel.send(0x80, payload);
        sent++;
        if (!ok) {
          const timedOut = await Promise.race([
            channel.drained().then(() => false),
            new Promise<boolean>((r) => setTimeout(() => r(true), 300)),
          ]);
          if (timedOut) {
            stalled = true;
            break;
          }
        }
      }
      assert.ok(stalled, `send never pushed back (sent ${sent} KiB)`);
      // Queued in this process: at most the high-water mark plus one batch (kernel buffers aside).
      const memGrowth = process.memoryUsage().arrayBuffers - memBefore;
      assert.ok(memGrowth < hwm + 4 * 1024 * 1024, `arrayBuffers grew ${memGrowth} B`);
      assert.ok(sent < 100_000, `sent ${sent} frames to a paused peer`);
      peer.command("resume");
      await channel.drained();
      for (let i = 0; i < 1000; i++) {
        view.setUint32(0, sent++);
        if (!channel.send(0x80, payload)) await channel.drained();
      }
      channel.send(0x84, new Uint8Array(0));
      await rec.until(() => rec.frames.length > 0, 20_000, "count");
      assert.equal(rec.frames[0]?.type, 0x85);
      assert.equal(readU32((rec.frames[0] as { payload: Uint8Array }).payload), sent);
      await channel.close();
    });
  }

  it("pause()/resume() on the receiving side holds frames and then delivers them in order", async () => {
    const channel = await createUdsChannelProvider({ address: peer.address }).connect();
    const rec = record(channel);
    channel.pause();
    channel.send(0x81, u32(5000));
    await new Promise((r) => setTimeout(r, 200));
    const whilePaused = rec.frames.length;
    assert.ok(whilePaused < 5000, `delivered ${whilePaused} frames while paused`);
    channel.resume();
    await rec.until(() => rec.frames.some((f) => f.type === 0x82), 10_000, "stream end");
    const seqs = rec.frames.filter((f) => f.type === 0x80).map((f) => readU32(f.payload));
    assert.equal(seqs.length, 5000);
    assert.ok(seqs.every((s, i) => s === i));
    await channel.close();
  });

  it("connect to an address nobody listens on → UNAVAILABLE", async () => {
    assertCode(
      await rejection(createUdsChannelProvider({ address: tmp.path("nobody.sock") }).connect()),
      Code.Unavailable,
    );
    assertCode(
      await rejection(createUdsChannelProvider({ address: abstractName() }).connect()),
      Code.Unavailable,
    );
  });

  it("rejects invalid options", () => {
    for (const o of [
      { maxFrameBytes: 100 },
      { handshakeTimeoutMs: 0 },
      { highWaterMarkBytes: -1 },
    ]) {
      assert.throws(
        () => createUdsChannelProvider({ address: "@x", ...o }),
        (e: NearwireError) => e.code === Code.InvalidArgument,
      );
    }
  });
});
