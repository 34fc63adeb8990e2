import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { Code, type NearwireError } from "@nearwire/core";
import { sniffForeignProtocol } from "@nearwire/socket";
import { createUdsChannelProvider, createUdsTransport } from "../src/index.js";
import { tempDir } from "./support/channels.js";

/** PROTOCOL.md §4.2: a peer speaking another transport's protocol is named, not timed out. */
const tmp = tempDir();

/** A raw Unix socket server that writes `bytes` to whoever connects (then waits). */
async function rawServer(path: string, bytes: Uint8Array): Promise<net.Server> {
  const server = net.createServer((s) => {
    s.on("error", () => {});
    s.write(bytes);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

/** An shm-ring handshake frame (§6.1): u32 BE length, then the JSON. */
function shmFrame(body: object): Buffer {
  const json = Buffer.from(JSON.stringify(body));
  const out = Buffer.alloc(4 + json.length);
  out.writeUInt32BE(json.length, 0);
  json.copy(out, 4);
  return out;
}

/** An HTTP/2 server's first frame: SETTINGS (length 6, type 4, flags 0, stream 0), one setting. */
const HTTP2_SETTINGS = Buffer.from("000006040000000000000300000064", "hex");

describe("transport mismatch (PROTOCOL.md §4.2)", () => {
  const path = tmp.path("uds.sock");
  const rejected: NearwireError[] = [];
  let close: () => Promise<void>;
  before(async () => {
    const listener = await createUdsChannelProvider({
      address: path,
      onRejected: (err) => rejected.push(err),
    }).listen(() => {});
    close = () => listener.close();
  });
  after(async () => {
    await close();
    tmp.cleanup();
  });

  /** Writes `pieces` to the server (10 ms apart) and returns all it answered before closing. */
  async function exchange(pieces: Buffer[]): Promise<Buffer> {
    const sock = net.connect(path);
    const chunks: Buffer[] = [];
    const closed = new Promise<void>((resolve, reject) => {
      sock.on("data", (d: Buffer) => chunks.push(d));
      sock.on("close", () => resolve());
      sock.on("error", reject);
    });
    for (const piece of pieces) {
      if (sock.destroyed) break;
      sock.write(piece);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await closed;
    return Buffer.concat(chunks);
  }

  /** Reads a server's shm-ring error frame and checks it names the mismatch. */
  function assertShmMismatch(all: Buffer): void {
    const n = all.readUInt32BE(0);
    const reply = JSON.parse(all.subarray(4, 4 + n).toString()) as {
      error: { code: number; reason: string; message: string };
    };
    assert.equal(reply.error.code, Code.FailedPrecondition);
    assert.equal(reply.error.reason, "transport-mismatch");
    assert.match(reply.error.message, /this is a @nearwire\/uds server .*shm-ring/);
    assert.equal(rejected.at(-1)?.reason, "transport-mismatch");
  }

  const shmHello = shmFrame({
    magic: "nearwire-shm",
    layout: 1,
    pid: process.pid,
    maxFrameBytes: 4259840,
  });

  it("an shm-ring client at a uds server gets an shm-ring error frame naming the mismatch", async () => {
    assertShmMismatch(await exchange([shmHello]));
  });

  it("the same when the handshake's length arrives alone (a length of 65-4096 waits for its 5th byte)", async () => {
    // Found by the Python-from-spec check: the 4 length bytes alone (71 > 64) were refused as a
    // bad preface with a frame-v1 GOAWAY, which an shm-ring client cannot read.
    assertShmMismatch(await exchange([shmHello.subarray(0, 4), shmHello.subarray(4)]));
    const byteByByte: Buffer[] = [...shmHello.subarray(0, 6)].map((b) => Buffer.from([b]));
    assertShmMismatch(await exchange([...byteByByte, shmHello.subarray(6)]));
  });

  it("a length of 65-4096 whose 5th byte is not `{` is a bad preface once that byte is in", async () => {
    const all = await exchange([Buffer.from([0, 0, 0, 71]), Buffer.from([0x80])]);
    assert.equal(all[4], 0x02, "a frame-v1 GOAWAY");
    assert.equal(all[5], Code.InvalidArgument);
    assert.equal(rejected.at(-1)?.reason, "bad-preface");
  });

  it("a uds client at an HTTP/2 (gRPC) server: FAILED_PRECONDITION naming @nearwire/grpc-uds", async () => {
    const p = tmp.path("h2.sock");
    const server = await rawServer(p, HTTP2_SETTINGS);
    try {
      await assert.rejects(createUdsTransport({ address: p }).connect(), (e: NearwireError) => {
        assert.equal(e.code, Code.FailedPrecondition);
        assert.equal(e.reason, "transport-mismatch");
        assert.match(
          e.message,
          /^the server at .*h2\.sock speaks HTTP\/2 \(gRPC\), not nearwire frames: connect with @nearwire\/grpc-uds$/,
        );
        return true;
      });
    } finally {
      server.close();
    }
  });

  it("a uds client at an shm-ring server: FAILED_PRECONDITION naming @nearwire/shm-ring", async () => {
    const p = tmp.path("shm.sock");
    // What an shm-ring server answers a HELLO it cannot parse as its handshake.
    const server = await rawServer(
      p,
      shmFrame({ error: { code: 13, reason: "bad-preface", message: "bad handshake" } }),
    );
    try {
      await assert.rejects(createUdsTransport({ address: p }).connect(), (e: NearwireError) => {
        assert.equal(e.code, Code.FailedPrecondition);
        assert.equal(e.reason, "transport-mismatch");
        assert.match(
          e.message,
          /speaks the shm-ring handshake, not nearwire frames: connect with @nearwire\/shm-ring$/,
        );
        return true;
      });
    } finally {
      server.close();
    }
  });

  it("nearwire's own first frames are never taken for another protocol", () => {
    const hello = Buffer.from("00000010014e454152574952450001000000400000", "hex");
    const goaway = Buffer.from("0000000c02036261642070726566616365", "hex");
    for (const role of ["client", "server"] as const) {
      assert.equal(sniffForeignProtocol(hello, role), undefined);
      assert.equal(sniffForeignProtocol(goaway, role), undefined);
      assert.equal(sniffForeignProtocol(hello.subarray(0, 8), role), undefined, "too few bytes");
      assert.equal(sniffForeignProtocol(shmHello.subarray(0, 4), role), undefined, "4 bytes");
    }
    assert.equal(sniffForeignProtocol(HTTP2_SETTINGS, "server"), undefined);
  });
});
