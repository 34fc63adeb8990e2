import assert from "node:assert/strict";
import { connect as netConnect } from "node:net";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { closedWithin, type FuzzCase, fuzzLoop, fuzzRun, type Rng } from "@nearwire/conformance";
import { Code } from "@nearwire/core";
import { encodeHandshake, HandshakeReader } from "../src/control-socket.js";
import { createShmRingChannelProvider } from "../src/index.js";
import { HEADER_BYTES } from "../src/subpath-ring.js";
import { attachSegment, type Segment } from "../src/subpath-segment.js";
import {
  eventually,
  leakCheckedTempDir,
  openSegments,
  record,
  seqFrame,
} from "./support/leak-checks.js";
import { closedWith, rssOf, spawnPeer } from "./support/spawn-peer.js";

// Seeded fuzzing of a real shm-ring server process (issue 10 item 10): a raw client handshakes,
// maps the segment itself (a third mapping: the server's and a healthy client's are others) and
// writes random record words, types, lengths and padding into its client → server ring, then
// rings doorbells or closes; and random handshake frames on the control socket. The attacked
// connection may only end cleanly, with DATA_LOSS or INTERNAL, or as peer-closed; a second,
// healthy client keeps echoing all along; at the end the server holds no segment, its RSS is
// bounded and it exits by itself. `NEARWIRE_FUZZ_ITERATIONS` (default 200) and
// `NEARWIRE_FUZZ_SEED` (default 0x6e77) choose the run; `pnpm fuzz` runs 100,000. The corpus
// (test/fuzz-corpus/shm-ring.json) is replayed first; a failing input is appended to it.
const { iterations: ITERATIONS, seed: SEED } = fuzzRun(200);
const BATCH = 4;
const RING = 64 * 1024;
const MiB = 1024 * 1024;
const CORPUS = fileURLToPath(new URL("./fuzz-corpus/shm-ring.json", import.meta.url));
const tmp = leakCheckedTempDir("nw-shm-fuzz-");

/**
 * One input. `ring`: hex of 8-byte-aligned writes `{at, hex}` into ring 0's data (the u32 word at
 * `at` is stored last, with a release store), then `control` (hex) on the socket, then `end`
 * ("end" or "destroy"). `handshake`: `control` hex written on a fresh socket before any offer.
 */
interface Case extends FuzzCase {
  kind: "ring" | "handshake";
  writes?: { at: number; hex: string }[];
  control: string;
  end: "end" | "destroy";
}

function randomRingCase(rng: Rng, name: string): Case {
  const writes: { at: number; hex: string }[] = [];
  let at = 0;
  const records = 1 + rng.int(4);
  for (let r = 0; r < records && at < RING; r++) {
    const n = [
      0,
      1,
      7,
      8,
      100,
      RING / 2 - 16,
      RING / 2 - 15,
      RING - 8,
      RING,
      0x7fffffff,
      rng.int(4096),
    ][rng.int(11)] as number;
    const committed = rng.int(5) !== 0;
    const word = rng.int(8) === 0 ? rng.u32() : ((committed ? 0x80000000 : 0) | n) >>> 0;
    const type = [0x00, 0x01, 0x02, 0x0f, 0x10, 0x80, 0x90, 0xff, rng.int(256)][
      rng.int(9)
    ] as number;
    const room = Math.min(RING - at - 8, n, 256);
    const rec = Buffer.alloc(8 + Math.max(0, room));
    rec.writeUInt32LE(word, 0);
    rec[4] = type;
    if (rng.int(4) === 0) rec[5 + rng.int(3)] = 1 + rng.int(255);
    rng.bytes(rec.length - 8).copy(rec, 8);
    writes.push({ at, hex: rec.toString("hex") });
    at += Math.ceil((8 + (word & 0x7fffffff)) / 8) * 8;
  }
  if (rng.int(3) === 0) {
    // Unpublished garbage elsewhere in the ring.
    writes.push({
      at: 8 * (64 + rng.int(RING / 8 - 128)),
      hex: rng.bytes(8 + 8 * rng.int(8)).toString("hex"),
    });
  }
  const control = [
    "44",
    "43",
    "4443",
    "",
    rng.bytes(1 + rng.int(4)).toString("hex"),
    `47${rng.bytes(2 + rng.int(8)).toString("hex")}`,
  ][rng.int(6)] as string;
  return { name, kind: "ring", writes, control, end: rng.int(3) === 0 ? "destroy" : "end" };
}

function randomHandshakeCase(rng: Rng, name: string): Case {
  const hello = { magic: "nearwire-shm", layout: 1, pid: process.pid };
  const bodies: Buffer[] = [];
  const n = 1 + rng.int(3);
  for (let i = 0; i < n; i++) {
    switch (rng.int(6)) {
      case 0:
        bodies.push(encodeHandshake(hello));
        break;
      case 1:
        bodies.push(encodeHandshake({ ready: true }));
        break;
      case 2: {
        const b = encodeHandshake(hello);
        b[4 + rng.int(b.length - 4)] = rng.int(256);
        bodies.push(b);
        break;
      }
      case 3: {
        const b = Buffer.alloc(4);
        b.writeUInt32BE([0, 4097, 0xffffffff, rng.u32()][rng.int(4)] as number);
        bodies.push(b);
        break;
      }
      case 4:
        bodies.push(
          encodeHandshake({
            ...hello,
            layout: [0, 2, -1, "1", null][rng.int(5)],
            pid: [0, -1, 1e300, "x"][rng.int(4)],
          }),
        );
        break;
      default:
        bodies.push(rng.bytes(rng.int(64)));
    }
  }
  return { name, kind: "handshake", control: Buffer.concat(bodies).toString("hex"), end: "end" };
}

async function runCase(address: string, c: Case): Promise<void> {
  const socket = netConnect(address);
  socket.on("error", () => {});
  socket.on("data", () => {});
  await new Promise((r) => socket.once("connect", r));
  const done = closedWithin(socket);
  let segment: Segment | undefined;
  try {
    if (c.kind === "ring") {
      const reader = new HandshakeReader(socket, 5000);
      socket.write(encodeHandshake({ magic: "nearwire-shm", layout: 1, pid: process.pid }));
      const offer = await reader.next();
      segment = attachSegment(offer.pid as number, offer.fd as number, {
        ringBytes: offer.ringBytes as number,
        nonce: offer.nonce as string,
      });
      socket.write(encodeHandshake({ ready: true }));
      reader.finish();
      socket.on("data", () => {});
      const bytes = new Uint8Array(segment.buffer);
      const words = new Int32Array(segment.buffer);
      // Payloads first, published words last (in reverse, as a producer would).
      for (const w of c.writes ?? []) {
        const b = Buffer.from(w.hex, "hex");
        bytes.set(b.subarray(4, Math.min(b.length, RING - w.at)), HEADER_BYTES + w.at + 4);
      }
      for (const w of [...(c.writes ?? [])].reverse())
        Atomics.store(words, (HEADER_BYTES + w.at) >> 2, Buffer.from(w.hex, "hex").readInt32LE(0));
    }
    if (c.control !== "") socket.write(Buffer.from(c.control, "hex"));
    if (c.end === "destroy") socket.destroy();
    else socket.end();
    await done;
  } finally {
    socket.destroy();
    segment?.release();
  }
}

describe("shm-ring fuzz: a real server process under random ring memory and handshakes", () => {
  it("replays the corpus, then random inputs; only the attacker's connection fails, the server keeps serving, RSS bounded, nothing left", async (t) => {
    const address = tmp.sock("fuzz");
    const server = await spawnPeer(["server", address, "adaptive", String(RING), "echo"]);
    const allowed = new Set<number>([0, Code.DataLoss, Code.Internal, Code.Unavailable]);
    // A healthy client connected before the attacks, and echoing after each batch.
    const healthy = await createShmRingChannelProvider({ address }).connect();
    const rec = record(healthy);
    let seq = 0;
    const echo = async (): Promise<void> => {
      const want = rec.frames.length + 1;
      healthy.send(0x90, seqFrame(seq++, 64));
      await eventually(() => assert.equal(rec.frames.length, want));
    };
    await echo();
    let seen = 0;
    const kinds = { ring: 0, handshake: 0 };
    try {
      const run = await fuzzLoop<Case>({
        seed: SEED,
        iterations: ITERATIONS,
        batchSize: BATCH,
        corpus: CORPUS,
        generate(rng, name) {
          const c = rng.int(3) === 0 ? randomHandshakeCase(rng, name) : randomRingCase(rng, name);
          kinds[c.kind]++;
          return c;
        },
        async feed(cases) {
          await Promise.all(cases.map((c) => runCase(address, c)));
          await echo();
          const codes = await closedWith(server);
          for (const c of codes.slice(seen))
            assert.ok(
              allowed.has(c.code),
              `attacker's connection closed with ${JSON.stringify(c)}`,
            );
          seen = codes.length;
        },
        rss: () => rssOf(server),
      });
      const { rssStartBytes: rssStart, rssMaxBytes: rssMax } = run;
      const codes = await closedWith(server);
      const tally: Record<string, number> = {};
      for (const c of codes)
        tally[`${c.code}${c.reason ? ` ${c.reason}` : ""}`] =
          (tally[`${c.code}${c.reason ? ` ${c.reason}` : ""}`] ?? 0) + 1;
      t.diagnostic(
        `seed ${SEED}: ${run.corpusCases} corpus cases + ${ITERATIONS} random inputs ${JSON.stringify(kinds)} in ${run.ms} ms; server closes ${JSON.stringify(tally)}; server RSS ${(rssStart / MiB).toFixed(1)} MiB at start, max ${(rssMax / MiB).toFixed(1)}`,
      );
      assert.ok(
        rssMax - rssStart < 64 * MiB,
        `server RSS grew ${((rssMax - rssStart) / MiB).toFixed(1)} MiB`,
      );
      await echo();
      await healthy.close();
      assert.equal(await rec.closed, undefined);
      // Only the healthy client's segment may remain, and it goes once that client closed.
      await eventually(() =>
        assert.deepEqual(openSegments(server.child.pid as number), { fds: [], maps: [] }),
      );
    } finally {
      await server.stop();
    }
    assert.equal(server.child.signalCode, null, "exited by itself, not killed");
    assert.equal(server.child.exitCode, 0);
  });
});
