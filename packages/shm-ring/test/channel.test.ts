import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { describe, it } from "node:test";
import { type Channel, Code, type NearwireError } from "@nearwire/core";
import type { WaitMode } from "../src/index.js";
import { createShmRingChannelProvider } from "../src/index.js";
import {
  checkSeq,
  eventually,
  leakCheckedTempDir,
  record,
  seqFrame,
  within,
} from "./fixtures/helpers.js";
import { type Peer, spawnPeer } from "./fixtures/spawn-peer.js";

const tmp = leakCheckedTempDir("nw-shm-ch-");

let n = 0;
async function server(
  wait: WaitMode,
  behavior = "echo",
  ringBytes = 4 * 1024 * 1024,
): Promise<{ peer: Peer; address: string }> {
  const address = tmp.sock(`s${n++}`);
  return { peer: await spawnPeer(["server", address, wait, String(ringBytes), behavior]), address };
}

/** Sends `count` sequence frames of `size` B through an echo peer and checks every echo. */
async function echoSequence(ch: Channel, count: number, size: number): Promise<void> {
  let got = 0;
  let failure: string | undefined;
  const rec = record(ch);
  const done = new Promise<void>((resolve) => {
    rec.onFrame = (type, payload) => {
      const bad = type === 0x81 ? checkSeq(payload, got) : `type ${type}`;
      if (bad && !failure) failure = bad;
      if (++got === count) resolve();
    };
  });
  let sent = 0;
  while (sent < count) {
    if (!ch.send(0x81, seqFrame(sent++, size))) await ch.drained();
  }
  await within(
    Promise.race([done, rec.closed.then((e) => assert.fail(`closed early: ${e?.message}`))]),
    60_000,
    "echoes",
  );
  assert.equal(failure, undefined);
  assert.equal(got, count);
  await ch.close();
  assert.equal(await rec.closed, undefined);
}

describe("shm-ring channel across processes", () => {
  it("carries 100,000 sequence frames both ways (adaptive)", async () => {
    const { peer, address } = await server("adaptive");
    const ch = await createShmRingChannelProvider({ address }).connect();
    assert.equal(ch.transientPayloads, true);
    assert.equal(ch.maxPayloadBytes, 2 * 1024 * 1024 - 16);
    await echoSequence(ch, 100_000, 48);
    await peer.stop();
  });

  it("carries 1 MiB frames with the default ring", async () => {
    const { peer, address } = await server("adaptive");
    const ch = await createShmRingChannelProvider({ address }).connect();
    await echoSequence(ch, 24, 1024 * 1024);
    await peer.stop();
  });

  for (const wait of ["spin", "park", "adaptive"] as const) {
    it(`works in ${wait} mode on both sides`, async () => {
      const { peer, address } = await server(wait);
      const ch = await createShmRingChannelProvider({ address, wait, spinUs: 20 }).connect();
      await echoSequence(ch, 5_000, 100);
      await peer.stop();
    });
  }

  it("pushes back while the peer does not read, and drains when it does", async () => {
    const { peer, address } = await server("park", "paused", 64 * 1024);
    const ch = await createShmRingChannelProvider({ address, wait: "park" }).connect();
    const rec = record(ch);
    let accepted = 0;
    let full = false;
    for (let i = 0; i < 10_000 && !full; i++) {
      if (ch.send(0x82, new Uint8Array(1000))) accepted++;
      else full = true;
    }
    assert.equal(full, true, "send returned false");
    assert.ok(accepted >= 60 && accepted <= 65, `accepted ${accepted} frames of a 64 KiB ring`);
    let drained = false;
    const d = ch.drained().then(() => {
      drained = true;
    });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(drained, false, "still full while the peer is paused");
    peer.command("resume");
    await within(d, 10_000, "drained");
    ch.send(0x83, new Uint8Array(0));
    await eventually(() => assert.equal(rec.frames.length, 1));
    const count = new DataView((rec.frames[0] as { payload: Uint8Array }).payload.buffer).getUint32(
      0,
      true,
    );
    assert.equal(count, accepted + 1);
    await ch.close();
    await peer.stop();
  });

  it("rejects bad frames with typed errors and keeps working", async () => {
    const { peer, address } = await server("adaptive", "echo", 64 * 1024);
    const ch = await createShmRingChannelProvider({ address }).connect();
    assert.equal(ch.maxPayloadBytes, 32 * 1024 - 16);
    assert.throws(
      () => ch.send(0x81, new Uint8Array(32 * 1024)),
      (e: NearwireError) => e.code === Code.ResourceExhausted && e.reason === "frame-too-large",
    );
    for (const t of [0x01, 0x0f, 0x100, -1, 1.5]) {
      assert.throws(
        () => ch.send(t, new Uint8Array(1)),
        (e: NearwireError) => e.code === Code.InvalidArgument,
      );
    }
    await echoSequence(ch, 100, 32 * 1024 - 16);
    assert.throws(
      () => ch.send(0x81, new Uint8Array(1)),
      (e: NearwireError) => e.code === Code.Unavailable,
    );
    await peer.stop();
  });

  it("creates the control socket 0600 and removes it on close", async () => {
    const address = tmp.sock("perm");
    const listener = await createShmRingChannelProvider({ address }).listen(() => {});
    assert.equal(statSync(address).mode & 0o777, 0o600);
    await listener.close();
    assert.throws(() => statSync(address), { code: "ENOENT" });
  });
});
