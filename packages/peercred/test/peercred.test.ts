import assert from "node:assert/strict";
import { closeSync, openSync } from "node:fs";
import net from "node:net";
import { test } from "node:test";
import { peerCredentials } from "../src/index.js";

function fdOf(socket: net.Socket): number {
  return (socket as unknown as { _handle: { fd: number } })._handle.fd;
}

test("SO_PEERCRED of an accepted Unix socket is the connecting process's uid, gid and pid", async () => {
  const name = `\0nearwire-peercred-test-${process.pid}`;
  const server = net.createServer();
  const accepted = new Promise<net.Socket>((resolve) => {
    server.once("connection", resolve);
  });
  await new Promise<void>((resolve) => server.listen(name, resolve));
  const client = net.connect(name);
  const socket = await accepted;
  try {
    assert.deepEqual(peerCredentials(fdOf(socket)), {
      uid: process.getuid?.(),
      gid: process.getgid?.(),
      pid: process.pid,
    });
  } finally {
    client.destroy();
    socket.destroy();
    server.close();
  }
});

test("a fd that is not a Unix socket throws with the errno name as code", () => {
  const fd = openSync("/dev/null", "r");
  try {
    assert.throws(
      () => peerCredentials(fd),
      (e: NodeJS.ErrnoException) => e.code === "ENOTSOCK",
    );
  } finally {
    closeSync(fd);
  }
  assert.throws(
    () => peerCredentials(-1),
    (e: NodeJS.ErrnoException) => e.code === "ERR_INVALID_ARG_TYPE",
  );
});
