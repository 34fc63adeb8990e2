/**
 * docs/deploying.md, followed as far as one machine allows: a server running as root in a
 * shared directory of group `nogroup` (setgid, 2750), a client running as `nobody` (a member of
 * that group) in another process.
 */
import assert from "node:assert/strict";
import { chmodSync, chownSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { Code, jsonCodec, type Peer } from "@nearwire/core";
import { createUdsTransport } from "../src/index.js";
import { NOBODY, runPeerClient } from "./support/run-as.js";
import { Whoami } from "./support/whoami-service.js";

const NOGROUP = 65534;
const shared = mkdtempSync(join(tmpdir(), "nw-deploy-"));
chownSync(shared, 0, NOGROUP);
chmodSync(shared, 0o2750); // setgid: files made in it (the socket) get its group
after(() => rmSync(shared, { recursive: true, force: true }));

async function serve(socketMode: number, address: string) {
  const server = createUdsTransport({ address, socketMode, allowUids: [NOBODY] }).createServer();
  server.addService(Whoami, { who: (_req, ctx) => ({ ...ctx.peer }) }, { codec: jsonCodec });
  await server.listen();
  return server;
}

test("socketMode 0o660 in a setgid directory of the client's group: the other uid is served", async () => {
  const server = await serve(0o660, join(shared, "api.sock"));
  try {
    const st = statSync(server.address);
    assert.equal(st.mode & 0o777, 0o660);
    assert.equal(st.gid, NOGROUP);
    const out = await runPeerClient(["call", server.address], { uid: NOBODY, gid: NOGROUP });
    assert.equal((out.reply as Peer).uid, NOBODY);
  } finally {
    await server.close({ graceMs: 0 });
  }
});

test("socketMode 0o600: the other uid cannot open the socket file (EACCES → PERMISSION_DENIED)", async () => {
  const server = await serve(0o600, join(shared, "private.sock"));
  try {
    const out = await runPeerClient(["call", server.address], { uid: NOBODY, gid: NOGROUP });
    assert.equal(out.code, Code.PermissionDenied);
  } finally {
    await server.close({ graceMs: 0 });
  }
});
