import assert from "node:assert/strict";
import net from "node:net";
import { after, describe, it } from "node:test";
import { Code, type NearwireError } from "@nearwire/core";
import { createGrpcTransport } from "../src/index.js";
import { tempDir } from "./support/servers.js";

/**
 * A gRPC client at a nearwire server of another transport (PROTOCOL.md §4.2): the failed
 * connect is followed by one plain probe, and the error names what listens there.
 */
const tmp = tempDir();
after(() => tmp.cleanup());

/** A raw Unix socket server that answers whatever arrives with `bytes` (then waits). */
async function rawServer(path: string, bytes: Buffer): Promise<net.Server> {
  const server = net.createServer((s) => {
    s.on("error", () => {});
    s.once("data", () => s.write(bytes));
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

/** A nearwire server's HELLO (PROTOCOL.md §4.5 `hello-server-64k`). */
const NEARWIRE_HELLO = Buffer.from(
  "00000010014e4541525749524500010000000100" + "00d93c88d2",
  "hex",
);

function shmErrorFrame(): Buffer {
  const json = Buffer.from(
    '{"error":{"code":13,"reason":"bad-preface","message":"bad handshake"}}',
  );
  const out = Buffer.alloc(4 + json.length);
  out.writeUInt32BE(json.length, 0);
  json.copy(out, 4);
  return out;
}

describe("grpc-uds client at a server of another transport", () => {
  for (const [kind, bytes, pkg] of [
    ["a uds server (nearwire frames)", NEARWIRE_HELLO, "@nearwire/uds"],
    ["an shm-ring server (its JSON handshake)", shmErrorFrame(), "@nearwire/shm-ring"],
  ] as const) {
    it(`${kind}: FAILED_PRECONDITION transport-mismatch naming ${pkg}`, async () => {
      const path = `${tmp.dir}/${pkg.slice(10)}.sock`;
      const server = await rawServer(path, bytes);
      try {
        await assert.rejects(
          createGrpcTransport({ address: path, connectTimeoutMs: 3000 }).connect(),
          (e: NearwireError) => {
            assert.equal(e.code, Code.FailedPrecondition, e.message);
            assert.equal(e.reason, "transport-mismatch");
            assert.match(
              e.message,
              new RegExp(`^the server at .* speaks .*, not gRPC: connect with ${pkg}$`),
            );
            return true;
          },
        );
      } finally {
        server.close();
      }
    });
  }
});
