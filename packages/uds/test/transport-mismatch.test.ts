import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { Code, type NearwireError } from "@nearwire/core";
import { sniffForeignProtocol } from "@nearwire/socket";
import { createUdsChannelProvider, createUdsTransport } from "../src/index.js";
import { tempDir } from "./helpers.js";

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

  it("an shm-ring client at a uds server gets an shm-ring error frame naming the mismatch", async () => {
    const sock = net.connect(path);
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      sock.on("data", (d: Buffer) => chunks.push(d));
      sock.on("close", () => resolve());
      sock.on("error", reject);
      sock.write(
        shmFrame({ magic: "nearwire-shm", layout: 1, pid: process.pid, maxFrameBytes: 4259840 }),
      );
    });
    const all = Buffer.concat(chunks);
    const n = all.readUInt32BE(0);
    const reply = JSON.parse(all.subarray(4, 4 + n).toString()) as {
      error: { code: number; reason: string; message: string };
    };
    assert.equal(reply.error.code, Code.FailedPrecondition);
    assert.equal(reply.error.reason, "transport-mismatch");
    assert.match(reply.error.message, /this is a @nearwire\/uds server .*shm-ring/);
    const last = rejected.at(-1);
    assert.equal(last?.reason, "transport-mismatch");
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
    }
    assert.equal(sniffForeignProtocol(HTTP2_SETTINGS, "server"), undefined);
  });
});
