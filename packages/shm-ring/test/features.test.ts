import assert from "node:assert/strict";
import { connect as netConnect } from "node:net";
import { describe, it } from "node:test";
import { type Channel, Code, NearwireError } from "@nearwire/core";
import {
  FEATURE_BATCH,
  FEATURE_CREDIT_BYTES,
  FEATURE_CREDIT_WINDOW,
} from "@nearwire/core/protocol";
import { encodeHandshake, HandshakeReader } from "../src/control-socket.js";
import { createShmRingChannelProvider } from "../src/index.js";
import { leakCheckedTempDir } from "./support/leak-checks.js";

/**
 * The handshake's `features` key (PROTOCOL.md §6.1): the server answers it only when the client
 * sent it, and a bad value is refused. (BATCH only when both sides said so: the channel suite's
 * negotiation tests, channel.test.ts.)
 */
const tmp = leakCheckedTempDir("nw-shm-features-");
let n = 0;

async function listening(batches: boolean, creditWindowBytes?: number) {
  const address = tmp.sock(`feat${n++}`);
  const accepted: Channel[] = [];
  const window = creditWindowBytes === undefined ? {} : { creditWindowBytes };
  const provider = createShmRingChannelProvider({ address, batches, ...window });
  const listener = await provider.listen((ch) => {
    ch.start({ onFrame: () => {}, onClose: () => {} });
    accepted.push(ch);
  });
  return { address, accepted, listener };
}

/** Sends a HELLO with `extra` keys and returns the server's answer (offer or error). */
async function offerFor(address: string, extra: Record<string, unknown>) {
  const socket = netConnect(address);
  await new Promise((r) => socket.once("connect", r));
  const reader = new HandshakeReader(socket, 5000);
  socket.write(encodeHandshake({ magic: "nearwire-shm", layout: 1, pid: process.pid, ...extra }));
  try {
    return await reader.next();
  } finally {
    reader.finish();
    socket.destroy();
  }
}

describe("shm-ring handshake: features (PROTOCOL.md §6.1)", () => {
  it("a client without features gets an offer without them; one with them gets the server's", async () => {
    const srv = await listening(true);
    const plain = await offerFor(srv.address, {});
    assert.equal(plain.magic, "nearwire-shm");
    assert.equal("features" in plain, false);
    const asked = await offerFor(srv.address, { features: 0xffff_ffff });
    assert.equal(asked.features, FEATURE_BATCH | FEATURE_CREDIT_BYTES);
    await srv.listener.close();
  });

  // A bad value of either key: the handshake fails, and the server keeps serving others.
  const badValues: [string, Record<string, unknown>, unknown[]][] = [
    ["features", {}, ["1", -1, 1.5, 2 ** 32, null, [1]]],
    [
      "creditWindowBytes",
      { features: FEATURE_CREDIT_BYTES | FEATURE_CREDIT_WINDOW },
      ["1", -1, 1.5, 2 ** 32, null],
    ],
  ];
  for (const [key, beside, values] of badValues) {
    for (const bad of values) {
      it(`${key} ${JSON.stringify(bad)}: INVALID_ARGUMENT, no segment, the server keeps serving`, async () => {
        const srv = await listening(true);
        await assert.rejects(offerFor(srv.address, { ...beside, [key]: bad }), (e: unknown) => {
          assert.ok(e instanceof NearwireError);
          assert.equal(e.code, Code.InvalidArgument);
          assert.match(e.message, new RegExp(key));
          return true;
        });
        const ch = await createShmRingChannelProvider({
          address: srv.address,
          batches: true,
        }).connect();
        assert.equal(ch.peerAcceptsBatches, true);
        await ch.close();
        for (const a of srv.accepted) await a.close();
        await srv.listener.close();
      });
    }
  }

  it("a server's byte window: offered with its bit to a client that sent features, else not", async () => {
    const srv = await listening(true, 256 * 1024);
    const plain = await offerFor(srv.address, {});
    assert.equal("features" in plain, false);
    assert.equal("creditWindowBytes" in plain, false);
    const asked = await offerFor(srv.address, { features: FEATURE_BATCH | FEATURE_CREDIT_BYTES });
    assert.equal(asked.features, FEATURE_BATCH | FEATURE_CREDIT_BYTES | FEATURE_CREDIT_WINDOW);
    assert.equal(asked.creditWindowBytes, 256 * 1024);
    // Both ends of a connection see it, and the client's own (clamped as the peer reads it).
    const ch = await createShmRingChannelProvider({
      address: srv.address,
      batches: true,
      creditWindowBytes: 128 * 1024,
    }).connect();
    assert.equal(ch.peerCreditWindowBytes, 256 * 1024);
    assert.equal(ch.creditWindowBytes, 128 * 1024);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(srv.accepted.at(-1)?.peerCreditWindowBytes, 128 * 1024);
    assert.equal(srv.accepted.at(-1)?.creditWindowBytes, 256 * 1024);
    await ch.close();
    for (const a of srv.accepted) await a.close();
    await srv.listener.close();
  });

  it("a client's window below 64 KiB reads as 64 KiB; without its bit it is ignored", async () => {
    const srv = await listening(true);
    const features = FEATURE_CREDIT_BYTES | FEATURE_CREDIT_WINDOW;
    await offerFor(srv.address, { features, creditWindowBytes: 1 });
    await offerFor(srv.address, { features: FEATURE_CREDIT_BYTES, creditWindowBytes: 1 });
    // The offers above were not completed; a real client with each shows how the server read it.
    const raw = async (extra: Record<string, unknown>) => {
      const socket = netConnect(srv.address);
      await new Promise((r) => socket.once("connect", r));
      const reader = new HandshakeReader(socket, 5000);
      socket.write(
        encodeHandshake({ magic: "nearwire-shm", layout: 1, pid: process.pid, ...extra }),
      );
      await reader.next();
      socket.write(encodeHandshake({ ready: true }));
      await new Promise((r) => setTimeout(r, 100));
      const seen = srv.accepted.at(-1)?.peerCreditWindowBytes;
      reader.finish();
      socket.destroy();
      return seen;
    };
    assert.equal(await raw({ features, creditWindowBytes: 1 }), 64 * 1024);
    assert.equal(await raw({ features, creditWindowBytes: 64 * 1024 * 1024 }), 2 * 1024 * 1024);
    assert.equal(await raw({ features: FEATURE_CREDIT_BYTES, creditWindowBytes: 1 }), undefined);
    for (const a of srv.accepted) await a.close();
    await srv.listener.close();
  });

  it("a creditWindowBytes option outside 64 KiB … 2 MiB is INVALID_ARGUMENT at creation", () => {
    for (const bad of [1024, 4 * 1024 * 1024, 100_000.5]) {
      assert.throws(
        () => createShmRingChannelProvider({ address: tmp.sock("bad"), creditWindowBytes: bad }),
        (e: unknown) => e instanceof NearwireError && e.code === Code.InvalidArgument,
      );
    }
  });
});
