/**
 * Interop matrix, Python grpcio (Debian's python3-grpcio 1.51): a grpcio client against the
 * nearwire server and nearwire's client against a grpcio server, over a Unix socket path, every
 * case (test/fixtures/interop/). grpcio is installed by scripts/install-interop-deps.sh; without
 * it every case is skipped with the reason.
 */
import { spawnSync } from "node:child_process";
import { describe } from "node:test";
import { fileURLToPath } from "node:url";
import { Peer, runClientPeer } from "./support/interop/peers.js";
import { type StockServer, stockClientSuite, stockServerSuite } from "./support/interop/suites.js";

const PYTHON = "/usr/bin/python3";
const PEER = fileURLToPath(new URL("./fixtures/interop/python/interop_peer.py", import.meta.url));

function pythonMissing(): string | undefined {
  const py = spawnSync(PYTHON, ["-c", "import grpc"], { encoding: "utf8" });
  if (py.status !== 0)
    return `${PYTHON} cannot import grpc (apt-get install python3-grpcio, or run packages/grpc-uds/scripts/install-interop-deps.sh): ${py.stderr?.trim().split("\n").pop()}`;
  return undefined;
}

describe("interop: Python grpcio", () => {
  stockClientSuite("grpcio", ["unix"], pythonMissing, async () => ({
    run: (target, gzipTarget, cases) =>
      runClientPeer(PYTHON, [
        PEER,
        "client",
        "--target",
        target,
        "--gzip-target",
        gzipTarget,
        "--cases",
        cases.join(","),
      ]),
    async goaway(target, closeServer) {
      const peer = new Peer(PYTHON, [PEER, "client", "--target", target, "--cases", "goaway"]);
      try {
        await peer.waitFor("INFLIGHT", 10_000);
        const closing = closeServer();
        peer.send("CLOSING");
        const line = await peer.waitFor("RESULT ", 20_000);
        await closing;
        return JSON.parse(line) as Record<string, unknown>;
      } finally {
        peer.kill();
      }
    },
  }));

  stockServerSuite("grpcio", ["unix"], pythonMissing, async () => ({
    gzipResponse: { metadata: { "x-respond-gzip": "1" } }, // context.set_compression(Gzip)
    async start(path, options): Promise<StockServer> {
      const args = [PEER, "server", "--unix", path];
      if (options.maxStreams !== undefined) args.push("--max-streams", String(options.maxStreams));
      const peer = new Peer(PYTHON, args);
      const unix = await peer.waitFor("READY ", 10_000);
      return {
        unix,
        async stop() {
          peer.child.kill("SIGTERM");
          await peer.exited;
        },
        kill: () => peer.kill(),
      };
    },
  }));
});
