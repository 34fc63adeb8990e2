// A service written only from a .proto file, with interceptors on both sides: the server logs
// every call and checks a token, the client sends it, and the response headers and trailers
// come back to the caller.
//
//   node --import tsx proto/proto.ts serve uds          # terminal 1 (Ctrl-C stops it)
//   node --import tsx proto/proto.ts call uds Ada       # terminal 2
//
// Transports: uds, grpc-uds, shm-ring. PROTO_ADDRESS sets the socket path (default
// /tmp/nearwire-proto-<transport>.sock). generated/greeter_nearwire.ts is generated from greeter.proto
// (from the examples folder: `npx nearwire-protoc -I proto --out proto/generated proto/greeter.proto`,
// @nearwire/protoc-gen), so handlers and calls are typed from the schema. To read the .proto at
// run time instead, untyped: `servicesFromProto("greeter.proto").service("example.v1.Greeter")`
// from @nearwire/codec-protobuf.
import {
  authInterceptor,
  bearerToken,
  loggingInterceptor,
  type Metadata,
  type Transport,
} from "@nearwire/core";
import { createGrpcTransport } from "@nearwire/grpc-uds";
import { createShmRingTransport } from "@nearwire/shm-ring";
import { createUdsTransport } from "@nearwire/uds";
import { codec, Greeter } from "./generated/greeter_nearwire.js";

const [mode, kind = "uds", name = "Ada"] = process.argv.slice(2);
const address = process.env.PROTO_ADDRESS ?? `/tmp/nearwire-proto-${kind}.sock`;
const factories: Record<string, (options: { address: string }) => Transport> = {
  uds: createUdsTransport,
  "grpc-uds": createGrpcTransport,
  "shm-ring": createShmRingTransport,
};
const factory = factories[kind];
if (factory === undefined || (mode !== "serve" && mode !== "call")) {
  console.error("usage: proto.ts serve|call uds|grpc-uds|shm-ring [name]");
  process.exit(2);
}
const transport = factory({ address });
const TOKEN = "example-token";

if (mode === "serve") {
  const server = transport.createServer();
  const interceptors = [
    loggingInterceptor({ log: (line) => console.log(line.replace(/ [\d.]+ ms/, "")) }),
    authInterceptor((req) => req.metadata.authorization === `Bearer ${TOKEN}`),
  ];
  server.addService(
    Greeter,
    {
      SayHello: ({ name }, ctx) => {
        ctx.responseHeaders["x-served-by"] = `nearwire ${kind}`;
        return { message: `hello, ${name}` };
      },
      async *Countdown({ name, from }, ctx) {
        for (let i = from; i > 0; i--) yield { message: `${i}…` };
        ctx.trailers["x-countdown"] = "done";
        yield { message: `go, ${name}!` };
      },
    },
    { codec, interceptors },
  );
  await server.listen();
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => void server.close({ graceMs: 1000 }));
  console.log(`serving on ${server.address} (${kind})`);
} else {
  await using connection = await transport.connect();
  const greeter = connection.client(Greeter, { codec, interceptors: [bearerToken(TOKEN)] });
  const headers: Metadata = {};
  const trailers: Metadata = {};
  const reply = await greeter.SayHello(
    { name },
    { timeoutMs: 5000, onHeader: (h) => Object.assign(headers, h) },
  );
  console.log(`${reply.message} (x-served-by: ${headers["x-served-by"]})`);
  const words: string[] = [];
  for await (const r of greeter.Countdown(
    { name, from: 3 },
    { onTrailer: (t) => Object.assign(trailers, t) },
  ))
    words.push(r.message);
  console.log(`${words.join(" ")} (x-countdown: ${trailers["x-countdown"]})`);
  const anonymous = connection.client(Greeter, { codec });
  await anonymous
    .SayHello({ name })
    .catch((e: Error) => console.log(`without a token: ${e.message}`));
}
