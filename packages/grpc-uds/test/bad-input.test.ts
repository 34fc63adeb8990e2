import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { credentials, Client as GrpcClient, Metadata, type ServiceError } from "@grpc/grpc-js";
import { type ClientConnection, Code, jsonCodec, NearwireError } from "@nearwire/core";
import { parseAddress } from "@nearwire/socket";
import { createGrpcTransport, grpcTarget } from "../src/index.js";
import { type ServerChild, startServer, tempDir } from "./support/servers.js";
import { testService, testServiceWithMissing } from "./support/test-service.js";

const MAX = 64 * 1024;

async function rejects(promise: Promise<unknown>, code: Code): Promise<NearwireError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof NearwireError, `expected NearwireError, got ${String(err)}`);
    assert.equal(err.code, code, `code ${err.code} (${err.message}) != ${code}`);
    return err;
  }
  assert.fail(`expected rejection with code ${code}`);
}

/** Sends raw bytes to a method with a bare grpc-js client. */
function rawUnary(target: string, path: string, bytes: Buffer): Promise<ServiceError | Buffer> {
  const client = new GrpcClient(target, credentials.createInsecure());
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      bytes,
      new Metadata(),
      {},
      (err, value) => {
        client.close();
        resolve(err ?? (value as Buffer));
      },
    );
  });
}

describe("grpc-uds bad input: the right status, and the server keeps serving", () => {
  const tmp = tempDir();
  let server: ServerChild;
  let connection: ClientConnection;
  let bystander: ClientConnection;
  const text = (n: number) => "x".repeat(n);

  before(async () => {
    server = await startServer(`unix:${tmp.dir}/bad.sock`, MAX);
    const transport = createGrpcTransport({ address: server.address, maxMessageBytes: MAX });
    connection = await transport.connect();
    bystander = await transport.connect();
  });
  after(async () => {
    await connection?.close();
    await bystander?.close();
    await server?.stop();
    tmp.cleanup();
  });

  async function othersStillServed(): Promise<void> {
    const c = bystander.client(testService, { codec: jsonCodec });
    assert.deepEqual(await c.echo({ id: 9, text: "fine" }), { id: 9, text: "fine" });
    const own = connection.client(testService, { codec: jsonCodec });
    assert.deepEqual(await own.echo({ id: 8, text: "fine" }), { id: 8, text: "fine" });
  }

  it("a request over maxMessageBytes fails with RESOURCE_EXHAUSTED; the next call is fine", async () => {
    const c = connection.client(testService, { codec: jsonCodec });
    const err = await rejects(c.echo({ id: 1, text: text(MAX) }), Code.ResourceExhausted);
    assert.equal(err.reason, "message-too-large");
    await othersStillServed();
  });

  it("a request over the server's limit (client allows more) fails with RESOURCE_EXHAUSTED", async () => {
    const big = await createGrpcTransport({
      address: server.address,
      maxMessageBytes: 4 * MAX,
    }).connect();
    try {
      const c = big.client(testService, { codec: jsonCodec });
      await rejects(c.echo({ id: 1, text: text(2 * MAX) }), Code.ResourceExhausted);
      assert.deepEqual(await c.echo({ id: 2, text: "ok" }), { id: 2, text: "ok" });
    } finally {
      await big.close();
    }
    await othersStillServed();
  });

  it("a streamed item over the limit fails the stream with RESOURCE_EXHAUSTED", async () => {
    const c = connection.client(testService, { codec: jsonCodec });
    await rejects(
      (async () => {
        for await (const _ of c.bidi([{ seq: 0 }, { seq: 1, pad: text(MAX) } as never])) {
          // drain
        }
      })(),
      Code.ResourceExhausted,
    );
    await othersStillServed();
  });

  it("an unknown method and an unknown service fail with UNIMPLEMENTED", async () => {
    const c = connection.client(testServiceWithMissing, { codec: jsonCodec });
    await rejects(c.missing({ id: 1, text: "" }), Code.Unimplemented);
    const target = grpcTarget(parseAddress(server.address));
    const err = await rawUnary(target, "/nearwire.nowhere.Svc/echo", Buffer.from("{}"));
    assert.equal((err as ServiceError).code, Code.Unimplemented);
    await othersStillServed();
  });

  it("bytes the codec cannot decode fail with INVALID_ARGUMENT reason decode-failed", async () => {
    const target = grpcTarget(parseAddress(server.address));
    const err = (await rawUnary(
      target,
      "/nearwire.test.Test/echo",
      Buffer.from([0xff, 0xfe, 0x7b]),
    )) as ServiceError;
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.metadata.get("nearwire-reason")[0], "decode-failed");
    const ok = await rawUnary(
      target,
      "/nearwire.test.Test/echo",
      Buffer.from('{"id":4,"text":"raw"}'),
    );
    assert.deepEqual(JSON.parse((ok as Buffer).toString()), { id: 4, text: "raw" });
    await othersStillServed();
  });

  it("an undecodable item in a client stream fails it with INVALID_ARGUMENT", async () => {
    const target = grpcTarget(parseAddress(server.address));
    const client = new GrpcClient(target, credentials.createInsecure());
    const err = await new Promise<ServiceError | null>((resolve) => {
      const call = client.makeClientStreamRequest(
        "/nearwire.test.Test/sum",
        (b: Buffer) => b,
        (b: Buffer) => b,
        new Metadata(),
        {},
        (e) => resolve(e),
      );
      call.write(Buffer.from('{"seq":0}'));
      call.write(Buffer.from("not json"));
      call.end();
    });
    client.close();
    assert.equal(err?.code, Code.InvalidArgument);
    await othersStillServed();
  });

  it("metadata keys gRPC cannot carry fail the call with INVALID_ARGUMENT before sending", async () => {
    const c = connection.client(testService, { codec: jsonCodec });
    await rejects(
      c.echo({ id: 1, text: "" }, { metadata: { "bad key!": "v" } }),
      Code.InvalidArgument,
    );
    await othersStillServed();
  });

  it("a peer that is not gRPC gets dropped; the server keeps serving", async () => {
    const { connect } = await import("node:net");
    const path = parseAddress(server.address);
    assert.equal(path.kind, "path");
    await new Promise<void>((resolve) => {
      const socket = connect({ path: path.kind === "path" ? path.path : "" });
      socket.on("connect", () => socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n garbage \0\0\0"));
      socket.on("error", () => resolve());
      socket.on("close", () => resolve());
      socket.resume();
      setTimeout(() => socket.destroy(), 2000).unref();
    });
    await othersStillServed();
  });
});
