// A grpc-uds server with a JSON greeter and the standard health service (grpc.health.v1.Health),
// called from Python's stock grpcio by client.py: real gRPC over HTTP/2 on a Unix socket.
//
//   node --import tsx health-python/server.ts                 # terminal 1 (Ctrl-C stops it)
//   python3 health-python/client.py /tmp/nearwire-health.sock  # terminal 2
//
// Python needs grpcio only (Debian: apt-get install python3-grpcio). HEALTH_ADDRESS sets the
// socket path.
import {
  createHealthService,
  defineService,
  jsonCodec,
  messageType,
  ServingStatus,
  unary,
} from "@nearwire/core";
import { createGrpcTransport } from "@nearwire/grpc-uds";

const Greeter = defineService("example.Greeter", {
  say: unary(
    messageType<{ name: string }>("example.HelloRequest"),
    messageType<{ text: string }>("example.HelloReply"),
  ),
});

const transport = createGrpcTransport({
  address: process.env.HEALTH_ADDRESS ?? "/tmp/nearwire-health.sock",
});
const server = transport.createServer();
// The codec is gRPC's serializer: a gRPC client in any language sends JSON bytes to this method.
server.addService(
  Greeter,
  { say: ({ name }) => ({ text: `hello, ${name}` }) },
  { codec: jsonCodec },
);
// The health service speaks the real protobuf messages, whatever the other services use.
const health = createHealthService(); // "" (the whole server) is SERVING
server.addService(health.definition, health.impl, { codec: health.codec });
health.setStatus(Greeter.typeName, ServingStatus.SERVING);
await server.listen();
// close() first turns every status NOT_SERVING, so watchers learn the server is going.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void server.close({ graceMs: 1000 }));
console.log(`serving on ${server.address}`);
