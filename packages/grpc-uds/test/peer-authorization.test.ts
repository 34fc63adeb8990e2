import assert from "node:assert/strict";
import { test } from "node:test";
import {
  Code,
  defineService,
  jsonCodec,
  messageType,
  type NearwireError,
  type Peer,
  unary,
} from "@nearwire/core";
import { createGrpcTransport } from "../src/index.js";

const Echo = defineService("test.Echo", {
  say: unary(messageType<{ text: string }>("test.Req"), messageType<{ text: string }>("test.Res")),
});

test("authorize runs on accept with SO_PEERCRED: false closes the connection (UNAVAILABLE), true serves", async () => {
  const seen: Peer[] = [];
  const transport = createGrpcTransport({
    address: `unix-abstract:nearwire-grpc-peer-${process.pid}`,
    connectTimeoutMs: 1000,
    authorize: (peer) => {
      seen.push(peer);
      return seen.length > 1;
    },
  });
  const server = transport.createServer();
  server.addService(Echo, { say: ({ text }) => ({ text }) }, { codec: jsonCodec });
  await server.listen();
  try {
    await assert.rejects(transport.connect(), (e: NearwireError) => {
      assert.equal(e.code, Code.Unavailable);
      return true;
    });
    // grpc-js retried on its own meanwhile; one of those connections was admitted.
    const connection = await transport.connect();
    const reply = await connection.client(Echo, { codec: jsonCodec }).say({ text: "hi" });
    await connection.close();
    assert.equal(reply.text, "hi");
    assert.equal(seen[0]?.uid, 0);
    assert.equal(seen[0]?.pid, process.pid);
  } finally {
    await server.close({ graceMs: 0 });
  }
});

test("an authorize that takes a while: the client's preface waits for it, none is lost", async () => {
  // The accepted socket reads (into the reused buffer) from the moment it is adopted; the
  // client's preface, SETTINGS and first request arrive while the check runs.
  const transport = createGrpcTransport({
    address: `unix-abstract:nearwire-grpc-slow-peer-${process.pid}`,
    connectTimeoutMs: 3000,
    authorize: async () => {
      await new Promise((r) => setTimeout(r, 300));
      return true;
    },
  });
  const server = transport.createServer();
  server.addService(Echo, { say: ({ text }) => ({ text }) }, { codec: jsonCodec });
  await server.listen();
  try {
    const connection = await transport.connect();
    const reply = await connection
      .client(Echo, { codec: jsonCodec })
      .say({ text: "late" }, { timeoutMs: 3000 });
    await connection.close();
    assert.equal(reply.text, "late");
  } finally {
    await server.close({ graceMs: 0 });
  }
});

test("allowUids on a TCP address is INVALID_ARGUMENT at creation", () => {
  assert.throws(
    () => createGrpcTransport({ address: "tcp:127.0.0.1:0", allowUids: [0] }),
    (e: NearwireError) => e.code === Code.InvalidArgument,
  );
});
