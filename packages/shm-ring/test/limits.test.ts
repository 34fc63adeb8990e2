import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type Channel, Code, NearwireError } from "@nearwire/core";
import { createShmRingChannelProvider } from "../src/index.js";
import {
  leakCheckedTempDir,
  openSegments,
  record,
  seqFrame,
  within,
} from "./support/leak-checks.js";
import { type Peer, spawnPeer } from "./support/spawn-peer.js";

// Limits a server sets and checks a client makes, each against a server in another process:
// `maxConnections`, and a client that refuses a segment its server did not seal.
const tmp = leakCheckedTempDir("nw-shm-limits-");
let n = 0;

/** An echo server in a child process (test/fixtures/peer.ts) with extra provider options. */
async function echoServer(options: object): Promise<{ peer: Peer; address: string }> {
  const address = tmp.sock(`l${n++}`);
  const peer = await spawnPeer(["server", address, "park", String(64 * 1024), "echo"], {
    ...process.env,
    PEER_OPTIONS: JSON.stringify(options),
  });
  return { peer, address };
}

/** Sends sequence frame `seq` on `ch` and waits for its echo. */
async function echoes(ch: Channel, rec: ReturnType<typeof record>, seq: number): Promise<void> {
  const before = rec.frames.length;
  ch.send(0x81, seqFrame(seq, 256));
  await within(
    (async () => {
      while (rec.frames.length === before) await new Promise((r) => setTimeout(r, 5));
    })(),
    5000,
    `echo ${seq}`,
  );
  assert.deepEqual(rec.frames.at(-1)?.payload, seqFrame(seq, 256));
}

describe("shm-ring server limits and client checks, across processes", () => {
  it("maxConnections: one connection too many is refused RESOURCE_EXHAUSTED; the others serve on, and a freed slot is reused", async () => {
    const { peer, address } = await echoServer({ maxConnections: 2 });
    const provider = createShmRingChannelProvider({ address, wait: "park" });
    try {
      const a = await provider.connect();
      const b = await provider.connect();
      const recA = record(a);
      const recB = record(b);
      await echoes(a, recA, 0);
      await echoes(b, recB, 0);

      const refused = await provider.connect().then(
        () => assert.fail("a third connection was accepted"),
        (e: unknown) => e,
      );
      assert.ok(refused instanceof NearwireError);
      assert.equal(refused.code, Code.ResourceExhausted);
      assert.equal(refused.reason, "too-many-connections");
      assert.match(refused.message, /maxConnections 2/);

      // Nothing of the open connections was lost: their next frames still echo, in order.
      await echoes(a, recA, 1);
      await echoes(b, recB, 1);

      // A closed connection frees its slot (the server sees the control socket close).
      await a.close();
      const c = await within(
        (async () => {
          for (;;) {
            try {
              return await provider.connect();
            } catch (e) {
              if ((e as NearwireError).reason !== "too-many-connections") throw e;
              await new Promise((r) => setTimeout(r, 20));
            }
          }
        })(),
        5000,
        "a connection after one closed",
      );
      const recC = record(c);
      await echoes(c, recC, 0);
      await echoes(b, recB, 2);
      await c.close();
      await b.close();
    } finally {
      await peer.stop();
    }
  });

  it("a client refuses an unsealed segment (a shmDir server) FAILED_PRECONDITION unsealed-segment, maps nothing; acceptUnsealedSegments takes it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nw-shm-dir-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const { peer, address } = await echoServer({ shmDir: dir });
    try {
      const refused = await createShmRingChannelProvider({ address, wait: "park" })
        .connect()
        .then(
          () => assert.fail("an unsealed segment was mapped"),
          (e: unknown) => e,
        );
      assert.ok(refused instanceof NearwireError);
      assert.equal(refused.code, Code.FailedPrecondition);
      assert.equal(refused.reason, "unsealed-segment");
      assert.match(refused.message, /acceptUnsealedSegments/);
      assert.deepEqual(openSegments(), { fds: [], maps: [] }, "the refused segment is not mapped");

      // The server serves on, and a client that trusts it gets its segment.
      const trusting = await createShmRingChannelProvider({
        address,
        wait: "park",
        acceptUnsealedSegments: true,
      }).connect();
      const rec = record(trusting);
      await echoes(trusting, rec, 0);
      await echoes(trusting, rec, 1);
      await trusting.close();
      assert.deepEqual(readdirSync(dir), [], "segment files are unlinked at once");
    } finally {
      await peer.stop();
    }
  });

  it("rejects maxConnections that is not an integer >= 1", () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      assert.throws(
        () => createShmRingChannelProvider({ address: tmp.sock("x"), maxConnections: bad }),
        (e: NearwireError) => e.code === Code.InvalidArgument && /maxConnections/.test(e.message),
      );
    }
  });
});
