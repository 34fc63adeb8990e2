import assert from "node:assert/strict";
import net from "node:net";
import { it } from "node:test";
import { Code, type NearwireError } from "@nearwire/core";
import { createShmRingTransport } from "../src/index.js";
import { leakCheckedTempDir } from "./support/leak-checks.js";

const tmp = leakCheckedTempDir("nw-shm-mismatch-");

/** An shm-ring connect to `path` fails FAILED_PRECONDITION `transport-mismatch` saying `message`. */
async function expectMismatch(path: string, message: RegExp | string): Promise<void> {
  await assert.rejects(createShmRingTransport({ address: path }).connect(), (e: NearwireError) => {
    assert.equal(e.code, Code.FailedPrecondition);
    assert.equal(e.reason, "transport-mismatch");
    if (typeof message === "string") assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

it("an shm-ring client at a uds server: the server's error frame names the mismatch at once", async () => {
  // What a @nearwire/uds server answers an shm-ring handshake (PROTOCOL.md §4.2).
  const json = Buffer.from(
    JSON.stringify({
      error: {
        code: Code.FailedPrecondition,
        reason: "transport-mismatch",
        message:
          "this is a @nearwire/uds server (nearwire frames); the client speaks the shm-ring handshake (a @nearwire/shm-ring client?)",
      },
    }),
  );
  const frame = Buffer.alloc(4 + json.length);
  frame.writeUInt32BE(json.length, 0);
  json.copy(frame, 4);
  const path = tmp.sock("uds-like");
  const server = net.createServer((s) => {
    s.on("error", () => {});
    s.once("data", () => s.end(frame));
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  try {
    await expectMismatch(path, /this is a @nearwire\/uds server/);
  } finally {
    server.close();
  }
});

it("an shm-ring client at a grpc-uds server: HTTP/2's SETTINGS is named, with the package to use", async () => {
  // A real grpc-uds server (grpc-js over HTTP/2): it sends SETTINGS first, then GOAWAY for the
  // handshake it cannot read. Before, the client saw INTERNAL "handshake frame is not JSON".
  const { createGrpcTransport } = await import("@nearwire/grpc-uds");
  const path = tmp.sock("grpc");
  const server = createGrpcTransport({ address: path }).createServer();
  await server.listen();
  try {
    await expectMismatch(
      path,
      `the server at ${path} speaks HTTP/2 (gRPC), not the shm-ring handshake: connect with @nearwire/grpc-uds`,
    );
    // The server is unharmed: a grpc-uds client still calls it (its health service answers).
    const conn = await createGrpcTransport({ address: path }).connect();
    await conn.close();
  } finally {
    await server.close();
  }
});
