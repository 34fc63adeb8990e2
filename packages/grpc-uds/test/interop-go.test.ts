/**
 * Interop matrix, grpc-go (Debian's golang-google-grpc-dev 1.33, GOPATH mode): a grpc-go client
 * against the nearwire server and nearwire's client against a grpc-go server, over a Unix
 * socket path and TCP, every case (test/fixtures/interop/). Skipped, with the reason, when
 * `go` or grpc-go is missing (scripts/install-interop-deps.sh installs them with root).
 */
import { describe } from "node:test";
import { buildGoPeer, goMissing, Peer, runClientPeer } from "./support/interop/peers.js";
import { type StockServer, stockClientSuite, stockServerSuite } from "./support/interop/suites.js";

const kinds = ["unix", "tcp"] as const;

describe("interop: grpc-go", () => {
  stockClientSuite("grpc-go", kinds, goMissing, async () => {
    const bin = await buildGoPeer();
    return {
      run: (target, gzipTarget, cases) =>
        runClientPeer(bin, [
          "client",
          "-target",
          target,
          "-gzip-target",
          gzipTarget,
          "-cases",
          cases.join(","),
        ]),
      async goaway(target, closeServer) {
        const peer = new Peer(bin, ["client", "-target", target, "-cases", "goaway"]);
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
    };
  });

  stockServerSuite("grpc-go", kinds, goMissing, async () => {
    const bin = await buildGoPeer();
    return {
      gzipResponse: { metadata: {} }, // grpc-go answers with the request's compressor
      async start(path, options): Promise<StockServer> {
        const args = ["server", "-unix", path];
        if (options.tcp === true) args.push("-tcp");
        if (options.maxStreams !== undefined) args.push("-max-streams", String(options.maxStreams));
        const peer = new Peer(bin, args);
        const ready = (await peer.waitFor("READY ", 10_000)).split(" ");
        return {
          unix: ready[0] ?? "",
          ...(ready[1] === undefined ? {} : { tcp: ready[1] }),
          async stop() {
            peer.child.kill("SIGTERM");
            await peer.exited;
          },
          kill: () => peer.kill(),
        };
      },
    };
  });
});
