import assert from "node:assert/strict";
import { connect as netConnect } from "node:net";
import { describe, it } from "node:test";
import { type Channel, Code, NearwireError } from "@nearwire/core";
import { FEATURE_BATCH } from "@nearwire/core/protocol";
import { encodeHandshake, HandshakeReader } from "../src/control-socket.js";
import { createShmRingChannelProvider } from "../src/index.js";
import { eventually, leakCheckedTempDir } from "./fixtures/helpers.js";

/**
 * The handshake's `features` key (PROTOCOL.md §6.1): BATCH is used only when both sides said
 * so, the server answers it only when the client sent it, and a bad value is refused.
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
  for (const [client, server] of [
    [true, true],
    [true, false],
    [false, true],
    [false, false],
  ] as const) {
    it(`client batches ${client}, server batches ${server}: BATCH only when both said so`, async () => {
      const srv = await listening(server);
      const ch = await createShmRingChannelProvider({
        address: srv.address,
        batches: client,
      }).connect();
      await eventually(() => assert.equal(srv.accepted.length, 1));
      const accepted = srv.accepted[0] as Channel;
      // Each side takes BATCH only if it announced it, and sends it only if the other did.
      assert.equal(ch.acceptsBatches, client, "client takes");
      assert.equal(ch.peerAcceptsBatches, client && server, "client sends");
      assert.equal(accepted.peerAcceptsBatches, client, "server sends");
      assert.equal(accepted.acceptsBatches, client && server, "server takes");
      await ch.close();
      await accepted.close();
      await srv.listener.close();
    });
  }

  it("a client without features gets an offer without them; one with them gets the server's", async () => {
    const srv = await listening(true);
    const plain = await offerFor(srv.address, {});
    assert.equal(plain.magic, "nearwire-shm");
    assert.equal("features" in plain, false);
    const asked = await offerFor(srv.address, { features: 0xffff_ffff });
    assert.equal(asked.features, FEATURE_BATCH);
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
