import assert from "node:assert/strict";
import { connect as netConnect } from "node:net";
import { describe, it } from "node:test";
import { type Channel, Code, NearwireError } from "@nearwire/core";
import { FEATURE_BATCH, FEATURE_CREDIT_BYTES } from "@nearwire/core/protocol";
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

async function listening(batches: boolean) {
  const address = tmp.sock(`feat${n++}`);
  const accepted: Channel[] = [];
  const listener = await createShmRingChannelProvider({ address, batches }).listen((ch) => {
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

  for (const bad of ["1", -1, 1.5, 2 ** 32, null, [1]]) {
    it(`features ${JSON.stringify(bad)}: INVALID_ARGUMENT, no segment, the server keeps serving`, async () => {
      const srv = await listening(true);
      await assert.rejects(offerFor(srv.address, { features: bad }), (e: unknown) => {
        assert.ok(e instanceof NearwireError);
        assert.equal(e.code, Code.InvalidArgument);
        assert.match(e.message, /features/);
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
});
