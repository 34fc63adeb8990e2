// One greeter on every transport: the service and its handler are written once, the transport is
// an argument.
//
//   node --import tsx greeter/greeter.ts serve uds        # terminal 1 (Ctrl-C stops it)
//   node --import tsx greeter/greeter.ts call uds Ada     # terminal 2: prints "hello, Ada"
//
// Transports: uds (Unix socket), grpc-uds (real gRPC over HTTP/2 on a Unix socket), shm-ring
// (shared-memory rings; a Unix socket carries only the set-up). GREETER_ADDRESS sets the socket
// path (default /tmp/nearwire-greeter-<transport>.sock).
import { defineService, jsonCodec, messageType, type Transport, unary } from "@nearwire/core";
import { createGrpcTransport } from "@nearwire/grpc-uds";
import { createShmRingTransport } from "@nearwire/shm-ring";
import { createUdsTransport } from "@nearwire/uds";

const Greeter = defineService("example.Greeter", {
  say: unary(
    messageType<{ name: string }>("example.HelloRequest"),
    messageType<{ text: string }>("example.HelloReply"),
  ),
});

const [mode, kind = "uds", name = "Ada"] = process.argv.slice(2);
const address = process.env.GREETER_ADDRESS ?? `/tmp/nearwire-greeter-${kind}.sock`;
const factories: Record<string, (options: { address: string }) => Transport> = {
  uds: createUdsTransport,
  "grpc-uds": createGrpcTransport,
  "shm-ring": createShmRingTransport,
};
const factory = factories[kind];
if (factory === undefined || (mode !== "serve" && mode !== "call")) {
  console.error("usage: greeter.ts serve|call uds|grpc-uds|shm-ring [name]");
  process.exit(2);
}
const transport = factory({ address });

if (mode === "serve") {
  const server = transport.createServer();
  server.addService(
    Greeter,
    { say: ({ name }) => ({ text: `hello, ${name}` }) },
    { codec: jsonCodec },
  );
  await server.listen();
  // Ctrl-C or SIGTERM: finish the calls in flight, remove the socket file, exit.
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => void server.close({ graceMs: 1000 }));
  console.log(`serving on ${server.address} (${kind})`);
} else {
  await using connection = await transport.connect();
  const greeter = connection.client(Greeter, { codec: jsonCodec });
  console.log((await greeter.say({ name }, { timeoutMs: 5000 })).text);
}
