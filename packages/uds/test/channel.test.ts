import assert from "node:assert/strict";
import net from "node:net";
import { after, describe, it } from "node:test";
import { channelSuite } from "@nearwire/conformance";
import { type Channel, Code, type NearwireError } from "@nearwire/core";
import { FRAME_OVERHEAD_BYTES } from "@nearwire/frame";
import { netPath, parseAddress } from "@nearwire/socket";
import { createUdsChannelProvider } from "../src/index.js";
import { SocketChannel } from "../src/socket-channel.js";
import { abstractName, assertCode, rejection, tempDir } from "./support/channels.js";

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
    batches: false,
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

/** Two provider-made ends whose HELLOs announce BATCH as given (PROTOCOL.md §4.1). */
async function udsBatchesPair(
  address: string,
  batches: { connector: boolean; listener: boolean },
): Promise<{ local: Channel; remote: Channel; dispose(): Promise<void> }> {
  let onLocal!: (ch: Channel) => void;
  const accepted = new Promise<Channel>((r) => {
    onLocal = r;
  });
  const listener = await createUdsChannelProvider({ address, batches: batches.listener }).listen(
    onLocal,
  );
  const remote = await createUdsChannelProvider({
    address: listener.address,
    batches: batches.connector,
  }).connect();
  return { local: await accepted, remote, dispose: () => listener.close() };
}

for (const [kind, address] of [
  ["path", () => tmp.path(`ch${n++}.sock`)],
  ["abstract", abstractName],
  ["tcp", () => "tcp:127.0.0.1:0"],
] as const) {
  channelSuite({
    name: `uds (${kind})`,
    factory: () => udsPair(address()),
    batchesFactory: (batches) => udsBatchesPair(address(), batches),
    supports: { closeReason: true, peerCrash: true, sendWith: true },
  });
}

describe("uds channel provider", () => {
  it("is named uds or tcp by address; nothing is transient outside onFrame", async () => {
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

  it("reads through a shared buffer: small frames transient, large ones in buffers of their own", async () => {
    for (const address of [tmp.path("reader.sock"), "tcp:127.0.0.1:0"]) {
      const { local, remote, dispose } = await udsBatchesPair(address, {
        connector: false,
        listener: false,
      });
      const small = (i: number) => new Uint8Array(50).fill(i);
      const large = (i: number) =>
        Uint8Array.from({ length: 200_000 }, (_, j) => (i + j * 13) & 0xff);
      // Both directions: the accepted socket (moved to a reader socket) and the connecting one.
      const got = new Map<Channel, { type: number; payload: Uint8Array; transient: boolean }[]>();
      const all = [local, remote].map(
        (ch) =>
          new Promise<void>((resolve) => {
            const frames: { type: number; payload: Uint8Array; transient: boolean }[] = [];
            got.set(ch, frames);
            ch.start({
              onFrame: (type, payload) => {
                frames.push({
                  type,
                  payload: new Uint8Array(payload),
                  transient: ch.transientPayloads,
                });
                if (frames.length === 6) resolve();
              },
              onClose: () => {},
            });
          }),
      );
      const sent = [small(1), large(2), large(3), small(4), large(5), small(6)];
      for (const ch of [local, remote])
        for (const [i, payload] of sent.entries()) ch.send(0x80 + i, payload);
      await Promise.all(all);
      for (const ch of [local, remote]) {
        const frames = got.get(ch) ?? [];
        assert.deepEqual(
          frames.map((f) => f.type),
          sent.map((_, i) => 0x80 + i),
        );
        for (const [i, f] of frames.entries()) assert.deepEqual(f.payload, sent[i], `frame ${i}`);
        assert.deepEqual(
          frames.map((f) => f.transient),
          [true, false, false, true, false, true],
        );
      }
      await remote.close();
      await local.close();
      await dispose();
    }
  });

  it("a SocketChannel on a socket connected without a reader delivers nothing transient", async () => {
    const { local, remote, dispose } = await udsPair(tmp.path("plain.sock"));
    const got: boolean[] = [];
    const done = new Promise<void>((resolve) => {
      remote.start({
        onFrame: () => {
          got.push(remote.transientPayloads);
          if (got.length === 2) resolve();
        },
        onClose: () => {},
      });
    });
    local.start({ onFrame: () => {}, onClose: () => {} });
    local.send(0x80, new Uint8Array(10));
    local.send(0x81, new Uint8Array(100_000));
    await done;
    assert.deepEqual(got, [false, false]);
    await remote.close();
    await local.close();
    await dispose();
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
    await Promise.all([ch.close(), accepted?.close()]);
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

  it("batched writes: the first after 2 KiB, then doubling up to 32 KiB within one run of sends, reset at the tick's end", async () => {
    let accepted!: (ch: Channel) => void;
    const local = new Promise<Channel>((r) => {
      accepted = r;
    });
    const listener = await createUdsChannelProvider({ address: abstractName() }).listen(accepted);
    const socket = net.connect({ path: netPath(parseAddress(listener.address)) });
    const remote = await SocketChannel.connect(socket, {
      maxFrameBytes: 4 * 1024 * 1024,
      handshakeTimeoutMs: 5000,
      highWaterMarkBytes: 8 * 1024 * 1024,
      closeTimeoutMs: 5000,
      frameTimeoutMs: 30_000,
      batches: false,
      peer: listener.address,
    });
    const server = await local;
    const got: number[] = [];
    server.start({ onFrame: (_type, p) => got.push(p[0] as number | 0), onClose: () => {} });
    const writes: number[] = [];
    const write = socket.write.bind(socket) as (chunk: Uint8Array, cb?: () => void) => boolean;
    socket.write = ((chunk: Uint8Array, cb?: () => void) => {
      writes.push(chunk.byteLength);
      return write(chunk, cb);
    }) as typeof socket.write;
    const frame = 64 + FRAME_OVERHEAD_BYTES;
    const burst = (count: number, first: number) => {
      for (let i = 0; i < count; i++) {
        const p = new Uint8Array(64);
        p[0] = (first + i) & 0xff;
        remote.send(0x80, p);
      }
    };
    burst(2000, 0); // 143 KiB in one synchronous run
    const early = [...writes];
    await new Promise((r) => setImmediate(r));
    // Written early at 2, 4, 8, 16, then every 32 KiB of batch; the rest at the end of the tick.
    assert.deepEqual(
      early,
      [2048, 4096, 8192, 16384, 32768, 32768, 32768].map((at) => Math.ceil(at / frame) * frame),
    );
    assert.equal(writes.length, 8, `writes ${writes}`);
    assert.equal(
      writes.reduce((a, b) => a + b, 0),
      2000 * frame,
    );
    // The next run starts again at 2 KiB.
    writes.length = 0;
    burst(40, 2000);
    assert.deepEqual(writes, [Math.ceil(2048 / frame) * frame]);
    await new Promise((r) => setImmediate(r));
    const deadline = Date.now() + 5000;
    while (got.length < 2040 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(
      got,
      Array.from({ length: 2040 }, (_, i) => i & 0xff),
      "every frame arrives, in order",
    );
    await remote.close();
    await server.close();
    await listener.close();
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
