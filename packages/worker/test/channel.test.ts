import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import { checkSeq, seqFrame } from "@nearwire/conformance/seq-frames";
import { Code, type NearwireError } from "@nearwire/core";
import { createWorkerChannelProvider, type WaitMode } from "../src/index.js";
import { eventually, resources, startPeer } from "./support/workers.js";

/** Sends `frames` sequence frames to the peer worker while checking the ones it sends back. */
async function exchange(
  wait: WaitMode,
  frames: number,
  size: number,
  ringBytes?: number,
): Promise<{ bad: number; got: number; pushedBack: number; peerBad: number }> {
  const worker = startPeer({ role: "channel", wait, frames, size });
  try {
    const channel = await createWorkerChannelProvider({
      port: worker,
      wait,
      ...(ringBytes === undefined ? {} : { ringBytes }),
    }).connect();
    let got = 0;
    let bad = 0;
    let pushedBack = 0;
    const peerBad = new Promise<number>((resolve, reject) => {
      channel.start({
        onFrame(type, payload) {
          if (type === 0x21) {
            resolve(new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0, true));
            return;
          }
          if (checkSeq(payload, got) !== undefined) bad++;
          got++;
        },
        onClose: (err) => reject(err ?? new Error("closed before the report")),
      });
    });
    for (let i = 0; i < frames; i++) {
      if (!channel.send(0x20, seqFrame(i, size))) {
        pushedBack++;
        await channel.drained();
      }
    }
    const result = { bad, got, pushedBack, peerBad: await peerBad };
    result.bad = bad;
    result.got = got;
    await channel.close();
    return result;
  } finally {
    await worker.terminate();
  }
}

describe("worker channel: main thread <-> worker thread", () => {
  for (const wait of ["spin", "park", "adaptive"] as const) {
    it(`carries 100,000 sequence frames each way in order (${wait})`, async () => {
      const r = await exchange(wait, 100_000, 64);
      assert.deepEqual(
        { bad: r.bad, got: r.got, peerBad: r.peerBad },
        {
          bad: 0,
          got: 100_000,
          peerBad: 0,
        },
      );
    });
  }

  it("pushes back on a full ring (4 KiB) and drains, order intact (park)", async () => {
    const r = await exchange("park", 20_000, 1000, 4096);
    assert.equal(r.bad, 0);
    assert.equal(r.got, 20_000);
    assert.equal(r.peerBad, 0);
    assert.ok(r.pushedBack > 0, "send returned false at least once");
  });

  it("carries 1 MiB frames", async () => {
    const r = await exchange("adaptive", 20, 1024 * 1024);
    assert.deepEqual(
      { bad: r.bad, got: r.got, peerBad: r.peerBad },
      { bad: 0, got: 20, peerBad: 0 },
    );
  });

  it("fails connect with UNAVAILABLE when the worker exits first, DEADLINE_EXCEEDED when it never listens", async () => {
    const before = resources();
    const silent = new Worker("setInterval(() => {}, 1000)", { eval: true });
    try {
      await assert.rejects(
        createWorkerChannelProvider({ port: silent, handshakeTimeoutMs: 200 }).connect(),
        (e: NearwireError) => e.code === Code.DeadlineExceeded,
      );
    } finally {
      await silent.terminate();
    }
    const dying = new Worker("setTimeout(() => process.exit(0), 50)", { eval: true });
    await assert.rejects(
      createWorkerChannelProvider({ port: dying }).connect(),
      (e: NearwireError) => e.code === Code.Unavailable && e.reason === "peer-closed",
    );
    await eventually(() => assert.deepEqual(resources(), before));
  });
});
