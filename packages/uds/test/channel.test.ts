import assert from "node:assert/strict";
import net from "node:net";
import { after, describe, it } from "node:test";
import { channelSuite } from "@nearwire/conformance";
import { type Channel, Code, type NearwireError } from "@nearwire/core";
import { netPath, parseAddress } from "@nearwire/socket";
import { createUdsChannelProvider } from "../src/index.js";
import { SocketChannel } from "../src/socket-channel.js";
import { abstractName, assertCode, rejection, tempDir } from "./helpers.js";

// The Channel contract (@nearwire/conformance channelSuite) over each address kind, then what is
// uds's own: the provider's name, the negotiated frame limit, connect errors, option checks.
const tmp = tempDir();
after(() => tmp.cleanup());
let n = 0;

/**
 * `local` is accepted by the real provider's listener; `remote` is a SocketChannel over a socket
 * this test owns, so that `crash()` can destroy it as a killed process's kernel would.
 */
async function udsPair(address: string): Promise<{
  local: Channel;
  remote: Channel;
  crash(): void;
  dispose(): Promise<void>;
}> {
  let onLocal!: (ch: Channel) => void;
  const accepted = new Promise<Channel>((r) => {
    onLocal = r;
  });
  const listener = await createUdsChannelProvider({ address }).listen(onLocal);
  const parsed = parseAddress(listener.address);
  const socket =
    parsed.kind === "tcp"
      ? net.connect({ host: parsed.host, port: parsed.port, noDelay: true })
      : net.connect({ path: netPath(parsed) });
  const remote = await SocketChannel.connect(socket, {
    maxFrameBytes: 4 * 1024 * 1024,
    handshakeTimeoutMs: 5000,
    highWaterMarkBytes: 1024 * 1024,
    closeTimeoutMs: 5000,
    frameTimeoutMs: 30_000,
    peer: listener.address,
  });
  return {
    local: await accepted,
    remote,
    // A TCP peer's death is a reset; a Unix socket has none (its kernel closes it).
    crash: () => void (parsed.kind === "tcp" ? socket.resetAndDestroy() : socket.destroy()),
    dispose: () => listener.close(),
  };
}

for (const [kind, address] of [
  ["path", () => tmp.path(`ch${n++}.sock`)],
  ["abstract", abstractName],
  ["tcp", () => "tcp:127.0.0.1:0"],
] as const) {
  channelSuite({
    name: `uds (${kind})`,
    factory: () => udsPair(address()),
    supports: { closeReason: true, peerCrash: true, sendWith: true },
  });
}

describe("uds channel provider", () => {
  it("is named uds or tcp by address; payloads are not transient", async () => {
    for (const [address, name] of [
      [tmp.path("name.sock"), "uds"],
      [abstractName(), "uds"],
      ["tcp:127.0.0.1:0", "tcp"],
    ] as const) {
      const provider = createUdsChannelProvider({ address });
      assert.equal(provider.name, name);
      const listener = await provider.listen((ch) => void ch.close());
      const ch = await createUdsChannelProvider({ address: listener.address }).connect();
      assert.equal(ch.transientPayloads, false);
      assert.equal(ch.maxPayloadBytes, 4 * 1024 * 1024);
      await ch.close();
      await listener.close();
    }
  });

  it("maxPayloadBytes is the smaller of both sides' maxFrameBytes", async () => {
    let accepted: Channel | undefined;
    const listener = await createUdsChannelProvider({ address: abstractName() }).listen((ch) => {
      accepted = ch;
    });
    const ch = await createUdsChannelProvider({
      address: listener.address,
      maxFrameBytes: 2 * 1024 * 1024,
    }).connect();
    assert.equal(ch.maxPayloadBytes, 2 * 1024 * 1024);
    await new Promise((r) => setImmediate(r));
    assert.equal(accepted?.maxPayloadBytes, 2 * 1024 * 1024);
    await ch.close();
    await accepted?.close();
    await listener.close();
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
