/**
 * Interop matrix, grpc-js (`@grpc/grpc-js`, a devDependency, in process): a grpc-js client
 * against the nearwire server and nearwire's client against a grpc-js server, over a Unix
 * socket path, every case (test/fixtures/interop/).
 */
import { describe } from "node:test";
import {
  runGrpcJsClient,
  runGrpcJsGoaway,
  startGrpcJsServer,
} from "./support/interop/grpcjs-peer.js";
import { type StockServer, stockClientSuite, stockServerSuite } from "./support/interop/suites.js";

const present = (): undefined => undefined;

describe("interop: grpc-js", () => {
  stockClientSuite("grpc-js", ["unix"], present, async () => ({
    run: (target, gzipTarget, cases) => runGrpcJsClient(target, cases, gzipTarget),
    goaway: (target, closeServer) => runGrpcJsGoaway(target, closeServer),
  }));

  stockServerSuite("grpc-js", ["unix"], present, async () => ({
    gzipResponse: {
      cannot:
        "grpc-js 1.14's server never compresses responses (it always sends grpc-encoding identity)",
    },
    async start(path, options): Promise<StockServer> {
      const server = await startGrpcJsServer(
        path,
        options.maxStreams === undefined ? {} : { maxStreams: options.maxStreams },
      );
      return { unix: server.target, stop: () => server.stop(), kill: () => server.force() };
    },
  }));
});
