import { once } from "node:events";
import * as grpc from "@grpc/grpc-js";
import { seededBytes } from "@nearwire/conformance/seeded";
import type { CaseSpec } from "./case-spec.js";
import {
  type BenchClient,
  type BenchServer,
  decodeStreamRequest,
  encodeStreamRequest,
} from "./endpoint.js";

/**
 * Baseline: bare `@grpc/grpc-js` over a Unix socket (`bare-grpc-js`) or TCP loopback
 * (`bare-grpc-js-tcp`, address `tcp:127.0.0.1:port`) with a bytes passthrough serializer, as a
 * user would write it without nearwire. `Echo` is unary; `Stream` answers an 8-byte request
 * (u32 count, u32 size) with `count` messages of `size` bytes.
 */

const ECHO_PATH = "/nearwire.bench.Bare/Echo";
const STREAM_PATH = "/nearwire.bench.Bare/Stream";
const identity = (b: Buffer): Buffer => b;
const LIMITS = {
  "grpc.max_receive_message_length": 64 * 1024 * 1024,
  "grpc.max_send_message_length": 64 * 1024 * 1024,
};

const definition: grpc.ServiceDefinition = {
  Echo: {
    path: ECHO_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
  Stream: {
    path: STREAM_PATH,
    requestStream: false,
    responseStream: true,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

/** grpc-js's target for a bench address: `tcp:host:port` → `host:port`, a path → `unix:path`. */
function grpcTarget(address: string): string {
  return address.startsWith("tcp:") ? address.slice(4) : `unix:${address}`;
}

/** Starts a bare grpc-js server on `address` (a socket path or `tcp:127.0.0.1:0`). */
export async function startBareGrpcServer(address: string): Promise<BenchServer> {
  const server = new grpc.Server(LIMITS);
  server.addService(definition, {
    Echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) =>
      callback(null, call.request),
    Stream: async (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      const { count, size } = decodeStreamRequest(call.request);
      const payload = Buffer.from(seededBytes(7, size));
      for (let i = 0; i < count; i++) {
        if (!call.write(payload) && !call.cancelled) await once(call, "drain");
      }
      call.end();
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(grpcTarget(address), grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    ),
  );
  return {
    address: address.startsWith("tcp:") ? address.replace(/:\d+$/, `:${port}`) : address,
    close: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
}

/** Connects a bare grpc-js client. */
export async function connectBareGrpc(
  spec: CaseSpec,
  address: string,
  seed: number,
): Promise<BenchClient> {
  const client = new grpc.Client(grpcTarget(address), grpc.credentials.createInsecure(), LIMITS);
  await new Promise<void>((resolve, reject) =>
    client.waitForReady(Date.now() + 10_000, (err) => (err ? reject(err) : resolve())),
  );
  const payload = Buffer.from(seededBytes(seed, spec.payloadBytes));
  return {
    wireBytes: payload.byteLength,
    roundTrip() {
      return new Promise<void>((resolve, reject) => {
        client.makeUnaryRequest(ECHO_PATH, identity, identity, payload, (err) =>
          err ? reject(err) : resolve(),
        );
      });
    },
    stream(count) {
      return new Promise<void>((resolve, reject) => {
        const call = client.makeServerStreamRequest(
          STREAM_PATH,
          identity,
          identity,
          Buffer.from(encodeStreamRequest(count, payload.byteLength)),
        );
        let got = 0;
        call.on("data", () => {
          got++;
        });
        call.on("error", reject);
        call.on("end", () =>
          got === count ? resolve() : reject(new Error(`bare-grpc: stream got ${got} of ${count}`)),
        );
      });
    },
    async close() {
      client.close();
    },
  };
}
