import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import {
  hex,
  readVectors,
  type ServerProcess,
  startServerProcess,
  type Vector,
} from "@nearwire/conformance";
import {
  Code,
  createCodec,
  defineService,
  jsonCodec,
  type MessageCodec,
  messageType,
  unary,
} from "@nearwire/core";
import { encodeRequest, encodeStatus, FrameType } from "@nearwire/core/protocol";
import { decodeGoAway, encodeFrame, FrameDecoder } from "@nearwire/frame";
import { createUdsTransport } from "../src/index.js";
import { tempDir } from "./support/channels.js";

// RPC-level bad input from a raw socket to a real server process: each gets a typed GOAWAY and
// a closed connection, while a well-behaved client on another connection keeps being served.
const HelloRequest = messageType<{ name: string }>("nearwire.example.HelloRequest");
const HelloReply = messageType<{ text: string }>("nearwire.example.HelloReply");
const Greeter = defineService("nearwire.example.Greeter", { Say: unary(HelloRequest, HelloReply) });
const utf8 = new TextEncoder();

describe("uds RPC: bad input from a peer", () => {
  const tmp = tempDir();
  const address = tmp.path("greeter.sock");
  let server: ServerProcess;
  let hello: Uint8Array;
  before(async () => {
    hello = hex(readVectors().get("rpc-unary-exchange") as Vector, "client-stream").subarray(0, 25);
    server = await startServerProcess(new URL("./fixtures/greeter-server.ts", import.meta.url), [
      address,
    ]);
  });
  after(async () => {
    await server.stop();
    tmp.cleanup();
  });

  /** Sends HELLO + `frames` on a raw socket; resolves with the GOAWAY the server sent, once it closed. */
  async function goAwayFor(frames: Uint8Array): Promise<{ code: number; closed: boolean }> {
    const sock = net.connect(address);
    const got: { type: number; payload: Uint8Array }[] = [];
    const decoder = new FrameDecoder({
      maxPayloadBytes: 1 << 20,
      onFrame: (type, payload) => got.push({ type, payload: payload.slice() }),
    });
    sock.on("data", (d: Buffer) => decoder.push(d));
    sock.write(Buffer.concat([hello, frames]));
    await new Promise<void>((resolve, reject) => {
      sock.once("close", () => resolve());
      sock.once("error", () => resolve());
      setTimeout(() => reject(new Error("server did not close the connection")), 5000).unref();
    });
    const goAway = got.find((f) => f.type === FrameType.GoAway);
    assert.ok(goAway !== undefined, `no GOAWAY among frame types ${got.map((f) => f.type)}`);
    return { code: decodeGoAway(goAway.payload).code, closed: true };
  }

  async function otherClientWorks(): Promise<void> {
    const conn = await createUdsTransport({ address }).connect();
    const greeter = conn.client(Greeter, { codec: jsonCodec });
    assert.deepEqual(await greeter.Say({ name: "still here" }), { text: "hello, still here" });
    await conn.close();
  }

  it("a REQUEST shorter than its fields → GOAWAY INTERNAL, connection closed, others served", async () => {
    const conn = await createUdsTransport({ address }).connect();
    const greeter = conn.client(Greeter, { codec: jsonCodec });
    assert.deepEqual(await greeter.Say({ name: "before" }), { text: "hello, before" });
    const { code } = await goAwayFor(
      encodeFrame(FrameType.Request, new Uint8Array([0, 0, 0, 1, 3, 0, 0, 0, 0, 200, 0x2f])),
    );
    assert.equal(code, Code.Internal);
    assert.deepEqual(await greeter.Say({ name: "after" }), { text: "hello, after" });
    await conn.close();
  });

  it("an RPC frame type nobody defined (0x17; 0x16 is BATCH) → GOAWAY INTERNAL", async () => {
    assert.equal((await goAwayFor(encodeFrame(0x17, new Uint8Array(4)))).code, Code.Internal);
    await otherClientWorks();
  });

  it("a STATUS sent to a server → GOAWAY INTERNAL", async () => {
    const status = encodeStatus(1, Code.OK, "", undefined, undefined);
    assert.equal((await goAwayFor(encodeFrame(FrameType.Status, status))).code, Code.Internal);
    await otherClientWorks();
  });

  it("a second REQUEST on a call id in use → GOAWAY INTERNAL", async () => {
    const open = encodeRequest(
      5,
      0,
      0,
      utf8.encode("/nearwire.example.Greeter/Say"),
      undefined,
      undefined,
    );
    const frames = Buffer.concat([
      encodeFrame(FrameType.Request, open),
      encodeFrame(FrameType.Request, open),
    ]);
    assert.equal((await goAwayFor(frames)).code, Code.Internal);
    await otherClientWorks();
  });

  it("a request the codec cannot decode fails that call with INVALID_ARGUMENT; the connection stays", async () => {
    const conn = await createUdsTransport({ address }).connect();
    const Bytes = defineService("nearwire.example.Greeter", {
      Say: unary(messageType<Uint8Array>("b"), HelloReply),
    });
    const bytes = createCodec("bytes", {
      b: { decodesInPlace: false, encode: (v) => v as Uint8Array, decode: (b) => b },
      "nearwire.example.HelloReply": jsonCodec.forType(HelloReply) as MessageCodec<unknown>,
    });
    const raw = conn.client(Bytes, { codec: bytes });
    await assert.rejects(raw.Say(utf8.encode("{not json")), { code: Code.InvalidArgument });
    const greeter = conn.client(Greeter, { codec: jsonCodec });
    assert.deepEqual(await greeter.Say({ name: "same connection" }), {
      text: "hello, same connection",
    });
    await conn.close();
  });
});
