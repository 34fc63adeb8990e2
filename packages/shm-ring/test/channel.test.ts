import assert from "node:assert/strict";
import { statSync } from "node:fs";
import type { Socket } from "node:net";
import { describe, it } from "node:test";
import { channelSuite } from "@nearwire/conformance";
import type { Channel } from "@nearwire/core";
import { createShmRingChannelProvider, type WaitMode } from "../src/index.js";
import { leakCheckedTempDir } from "./support/leak-checks.js";

// The Channel contract (@nearwire/conformance channelSuite) in each wait mode, both ends in this
// process; then what is shm-ring's own (the ring's payload limit, the control socket's file).
// Across processes: the conformance transport suite, faults.test.ts and hostile-peer.test.ts.
const tmp = leakCheckedTempDir("nw-shm-ch-");
let n = 0;

async function shmPair(
  wait: WaitMode,
  ringBytes?: number,
  batches = { connector: false, listener: false },
) {
  const options = {
    address: tmp.sock(`s${n++}`),
    wait,
    ...(ringBytes === undefined ? {} : { ringBytes }),
  };
  let onLocal!: (ch: Channel) => void;
  const accepted = new Promise<Channel>((r) => {
    onLocal = r;
  });
  const listener = await createShmRingChannelProvider({
    ...options,
    batches: batches.listener,
  }).listen(onLocal);
  const remote = await createShmRingChannelProvider({
    ...options,
    batches: batches.connector,
  }).connect();
  return {
    local: await accepted,
    remote,
    // A killed process's control socket closes with no 'C' or 'G' byte.
    crash: () => void (remote as unknown as { socket: Socket }).socket.destroy(),
    dispose: () => listener.close(),
  };
}

for (const wait of ["adaptive", "spin", "park"] as const) {
  channelSuite({
    name: `shm-ring (${wait})`,
    factory: () => shmPair(wait),
    batchesFactory: (batches) => shmPair(wait, undefined, batches),
    supports: { closeReason: true, peerCrash: true, sendWith: true },
    ...(wait === "adaptive" ? {} : { frames: 10_000 }),
  });
}

describe("shm-ring channel provider", () => {
  it("maxPayloadBytes is the agreed frame limit (4 MiB + 64 KiB), whatever the ring size; payloads are transient; the inbound capacity is the ring's", async () => {
    for (const ringBytes of [64 * 1024, undefined]) {
      const pair = await shmPair("adaptive", ringBytes);
      assert.equal(pair.local.transientPayloads, true);
      // What the RPC engine sizes a stream's receive window by (half of it, at most 1 MiB).
      assert.equal(pair.local.inboundCapacityBytes, ringBytes ?? 4 * 1024 * 1024);
      assert.equal(pair.remote.inboundCapacityBytes, ringBytes ?? 4 * 1024 * 1024);
      assert.equal(pair.remote.maxPayloadBytes, 4 * 1024 * 1024 + 64 * 1024);
      assert.equal(pair.local.maxPayloadBytes, 4 * 1024 * 1024 + 64 * 1024);
      await Promise.all([pair.local.close(), pair.remote.close()]);
      await pair.dispose();
    }
  });

  it("creates the control socket 0600 and removes it on close", async () => {
    const address = tmp.sock("perm");
    const listener = await createShmRingChannelProvider({ address }).listen(() => {});
    assert.equal(statSync(address).mode & 0o777, 0o600);
    await listener.close();
    assert.throws(() => statSync(address), { code: "ENOENT" });
  });
});
