import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Code, jsonCodec, type NearwireError, type Peer, type Server } from "@nearwire/core";
import { createUdsTransport, type UdsTransportOptions } from "../src/index.js";
import { abstractName } from "./support/channels.js";
import { NOBODY, runPeerClient } from "./support/run-as.js";
import { Whoami } from "./support/whoami-service.js";

const servers: Server[] = [];
after(() => Promise.all(servers.map((s) => s.close({ graceMs: 0 }))));

async function whoamiServer(
  options: Omit<UdsTransportOptions, "address"> & { address?: string },
  rejected: number[] = [],
): Promise<Server> {
  const server = createUdsTransport({
    address: abstractName(),
    ...options,
    onRejected: (err) => rejected.push(err.code),
  }).createServer();
  server.addService(Whoami, { who: (_req, ctx) => ({ ...ctx.peer }) }, { codec: jsonCodec });
  await server.listen();
  servers.push(server);
  return server;
}

test("allowUids [0] on an abstract name: nobody is refused PERMISSION_DENIED, root is served with its uid and pid", async () => {
  const rejected: number[] = [];
  const server = await whoamiServer({ allowUids: [0] }, rejected);
  const [stranger, root] = await Promise.all([
    runPeerClient(["call", server.address], { uid: NOBODY, gid: NOBODY }),
    runPeerClient(["call", server.address]),
  ]);
  assert.equal(stranger.uid, NOBODY);
  assert.equal(stranger.code, Code.PermissionDenied);
  assert.deepEqual(rejected, [Code.PermissionDenied]);
  const reply = root.reply as Peer;
  assert.equal(reply.uid, 0);
  assert.equal(reply.gid, 0);
  assert.equal(reply.pid, root.pid);
});

test("without options an abstract name serves every local user; ctx.peer says who", async () => {
  const server = await whoamiServer({});
  const stranger = await runPeerClient(["call", server.address], { uid: NOBODY, gid: NOBODY });
  const reply = stranger.reply as Peer;
  assert.equal(reply.uid, NOBODY);
  assert.equal(reply.gid, NOBODY);
  assert.equal(reply.pid, stranger.pid);
});

test("authorize (async) sees the peer's credentials; false refuses, true serves", async () => {
  const seen: Peer[] = [];
  const server = await whoamiServer({
    authorize: async (peer) => {
      seen.push(peer);
      return seen.length === 2;
    },
  });
  const transport = createUdsTransport({ address: server.address });
  await assert.rejects(transport.connect(), (e: NearwireError) => {
    assert.equal(e.code, Code.PermissionDenied);
    return true;
  });
  const connection = await transport.connect();
  const reply = await connection.client(Whoami, { codec: jsonCodec }).who({}, { timeoutMs: 2000 });
  await connection.close();
  assert.equal(reply.uid, 0);
  assert.equal(reply.pid, process.pid);
  assert.deepEqual(seen[0], seen[1]);
});

test("an authorize that takes a while: the client's first bytes wait for it, none is lost", async () => {
  // The accepted socket reads from the moment it is adopted; the client's HELLO arrives while
  // the check runs and must reach the channel once it is admitted.
  const server = await whoamiServer({
    authorize: async () => {
      await new Promise((r) => setTimeout(r, 300));
      return true;
    },
  });
  const connection = await createUdsTransport({ address: server.address }).connect();
  const reply = await connection.client(Whoami, { codec: jsonCodec }).who({}, { timeoutMs: 2000 });
  await connection.close();
  assert.equal(reply.pid, process.pid);
});

test("TCP: allowUids is INVALID_ARGUMENT at creation; authorize sees the address only", async () => {
  assert.throws(
    () => createUdsTransport({ address: "tcp:127.0.0.1:0", allowUids: [0] }),
    (e: NearwireError) => e.code === Code.InvalidArgument,
  );
  const seen: Peer[] = [];
  const server = await whoamiServer({
    address: "tcp:127.0.0.1:0",
    authorize: (peer) => {
      seen.push(peer);
      return false;
    },
  });
  await assert.rejects(
    createUdsTransport({ address: server.address }).connect(),
    (e: NearwireError) => {
      assert.equal(e.code, Code.PermissionDenied);
      return true;
    },
  );
  assert.match(seen[0]?.address ?? "", /^tcp:127\.0\.0\.1:\d+$/);
  assert.equal(seen[0]?.uid, undefined);
});

test("allowUids without the peercred addon: listen() rejects FAILED_PRECONDITION not-built", async () => {
  const out = await runPeerClient(["listen", abstractName()], {
    env: { NEARWIRE_PEERCRED_ADDON: "/nonexistent/nearwire_peercred.node" },
  });
  assert.equal(out.code, Code.FailedPrecondition);
  assert.equal(out.reason, "not-built");
});
