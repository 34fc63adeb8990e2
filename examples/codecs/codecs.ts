// A codec swap: the same service and handler with JSON, MessagePack or Protocol Buffers on the
// wire. Client and server must name the same codec (a mismatch fails INVALID_ARGUMENT
// codec-mismatch).
//
//   node --import tsx codecs/codecs.ts serve msgpack      # terminal 1 (Ctrl-C stops it)
//   node --import tsx codecs/codecs.ts call msgpack       # terminal 2
//
// Codecs: json, msgpack, protobuf. CODECS_ADDRESS sets the socket path.
import { createMsgpackCodec } from "@nearwire/codec-msgpack";
import { createProtobufCodec } from "@nearwire/codec-protobuf";
import { type Codec, defineService, jsonCodec, messageType, unary } from "@nearwire/core";
import { createUdsTransport } from "@nearwire/uds";
import protobuf from "protobufjs";

// Protocol Buffers needs the schema; MessageType names are the full protobuf names.
const { root } = protobuf.parse(`
  syntax = "proto3";
  package example;
  message Order { string item = 1; uint32 quantity = 2; repeated string notes = 3; }
  message Receipt { string text = 1; uint32 total_cents = 2; }
`);
interface Order {
  item: string;
  quantity: number;
  notes: string[];
}
interface Receipt {
  text: string;
  totalCents: number;
}
const OrderType = messageType<Order>("example.Order");
const ReceiptType = messageType<Receipt>("example.Receipt");
const Shop = defineService("example.Shop", { order: unary(OrderType, ReceiptType) });

const codecs: Record<string, Codec> = {
  json: jsonCodec,
  msgpack: createMsgpackCodec(),
  protobuf: createProtobufCodec(root),
};
const [mode, name = "json"] = process.argv.slice(2);
const codec = codecs[name];
if (codec === undefined || (mode !== "serve" && mode !== "call")) {
  console.error("usage: codecs.ts serve|call json|msgpack|protobuf");
  process.exit(2);
}
const transport = createUdsTransport({
  address: process.env.CODECS_ADDRESS ?? "/tmp/nearwire-codecs.sock",
});

if (mode === "serve") {
  const server = transport.createServer();
  // The handler is the same whatever the codec.
  server.addService(
    Shop,
    {
      order: ({ item, quantity }) => ({
        text: `${quantity} × ${item}`,
        totalCents: quantity * 250,
      }),
    },
    { codec },
  );
  await server.listen();
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => void server.close({ graceMs: 1000 }));
  console.log(`serving on ${server.address} (${name})`);
} else {
  const order: Order = { item: "coffee", quantity: 3, notes: ["oat milk", "to go"] };
  const bytes = codec.forType(OrderType).encode(order).byteLength;
  await using connection = await transport.connect();
  const receipt = await connection.client(Shop, { codec }).order(order, { timeoutMs: 5000 });
  console.log(
    `${name}: request ${bytes} B, receipt "${receipt.text}", ${receipt.totalCents} cents`,
  );
}
