/**
 * Wrapper overhead: nearwire grpc-uds vs bare @grpc/grpc-js, same run, same socket kind, 64 B
 * payload, server in a child process, identity serialization on both sides (the codec passes
 * the bytes through, so only the wrapper differs).
 *
 *   node --import tsx packages/grpc-uds/bench/overhead-bench.ts [rounds=5] [calls=5000]
 *
 * Prints per round: unary p50 (µs, one call in flight) and throughput (calls/s, 64 in flight),
 * then the medians and the ratios nearwire / bare.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  credentials,
  Client as GrpcClient,
  Server as GrpcJsServer,
  Metadata,
  ServerCredentials,
} from "@grpc/grpc-js";
import { createCodec, defineService, messageType, unary } from "@nearwire/core";
import { createGrpcTransport } from "../src/index.js";

const bytesType = messageType<Uint8Array>("bench.Bytes");
const service = defineService("bench.Echo", { echo: unary(bytesType, bytesType) });
const rawCodec = createCodec("raw", {
  "bench.Bytes": { decodesInPlace: true, encode: (v) => v as Uint8Array, decode: (b) => b },
});
const PATH = "/bench.Bare/echo";
const ident = (b: Buffer) => b;

async function serve(dir: string): Promise<void> {
  const nearwire = createGrpcTransport({ address: `unix:${dir}/nearwire.sock` }).createServer();
  nearwire.addService(service, { echo: (req) => req }, { codec: rawCodec });
  await nearwire.listen();
  const bare = new GrpcJsServer();
  bare.addService(
    {
      echo: {
        path: PATH,
        requestStream: false,
        responseStream: false,
        requestSerialize: ident,
        requestDeserialize: ident,
        responseSerialize: ident,
        responseDeserialize: ident,
      },
    },
    {
      echo: (call: { request: Buffer }, cb: (e: null, v: Buffer) => void) => cb(null, call.request),
    },
  );
  await new Promise<void>((resolve, reject) =>
    bare.bindAsync(`unix:${dir}/bare.sock`, ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  process.stdout.write("READY\n");
  process.once("SIGTERM", () => {
    bare.forceShutdown();
    void nearwire.close({ graceMs: 0 });
  });
}

type Call = () => Promise<unknown>;

async function p50Us(call: Call, n: number): Promise<number> {
  const times = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await call();
    times[i] = Number(process.hrtime.bigint() - t0) / 1000;
  }
  times.sort();
  return times[Math.floor(n / 2)] as number;
}

async function throughput(call: Call, n: number, inFlight: number): Promise<number> {
  let next = 0;
  const t0 = process.hrtime.bigint();
  const worker = async () => {
    while (next++ < n) await call();
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return n / (Number(process.hrtime.bigint() - t0) / 1e9);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main(): Promise<void> {
  if (process.argv[2] === "server") {
    await serve(process.argv[3] as string);
    return;
  }
  const rounds = Number(process.argv[2] ?? 5);
  const calls = Number(process.argv[3] ?? 5000);
  const dir = mkdtempSync(join(tmpdir(), "nw-grpc-bench-"));
  const child = spawn(
    process.execPath,
    ["--import", "tsx", new URL(import.meta.url).pathname, "server", dir],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout?.once("data", () => resolve());
      child.once("exit", () => reject(new Error("bench server exited")));
    });
    const payload = Buffer.alloc(64, 7);
    const connection = await createGrpcTransport({
      address: `unix:${dir}/nearwire.sock`,
    }).connect();
    const nw = connection.client(service, { codec: rawCodec });
    const bareClient = new GrpcClient(`unix:${dir}/bare.sock`, credentials.createInsecure(), {
      "grpc.use_local_subchannel_pool": 1,
    });
    const bare: Call = () =>
      new Promise((resolve, reject) =>
        bareClient.makeUnaryRequest(
          PATH,
          ident,
          ident,
          payload,
          new Metadata(),
          {},
          (err, value) => (err ? reject(err) : resolve(value)),
        ),
      );
    const nearwire: Call = () => nw.echo(payload);
    await p50Us(bare, 1000);
    await p50Us(nearwire, 1000);
    const res = {
      bareP50: [] as number[],
      nwP50: [] as number[],
      bareTput: [] as number[],
      nwTput: [] as number[],
    };
    for (let r = 0; r < rounds; r++) {
      res.bareP50.push(await p50Us(bare, calls));
      res.nwP50.push(await p50Us(nearwire, calls));
      res.bareTput.push(await throughput(bare, calls * 4, 64));
      res.nwTput.push(await throughput(nearwire, calls * 4, 64));
      console.log(
        `round ${r}: unary p50 bare ${res.bareP50[r]?.toFixed(1)} µs, nearwire ${res.nwP50[r]?.toFixed(1)} µs; ` +
          `64 in flight bare ${res.bareTput[r]?.toFixed(0)}/s, nearwire ${res.nwTput[r]?.toFixed(0)}/s`,
      );
    }
    const [bp, np, bt, nt] = [
      median(res.bareP50),
      median(res.nwP50),
      median(res.bareTput),
      median(res.nwTput),
    ];
    console.log(
      `median unary 64 B p50: bare ${bp.toFixed(1)} µs, nearwire ${np.toFixed(1)} µs, ratio ${(np / bp).toFixed(3)}`,
    );
    console.log(
      `median 64-in-flight: bare ${bt.toFixed(0)}/s, nearwire ${nt.toFixed(0)}/s, ratio ${(nt / bt).toFixed(3)}`,
    );
    bareClient.close();
    await connection.close();
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
