// Streaming: a server stream (one request, many replies) and a bidirectional stream (replies
// while requests are still coming), over a Unix socket.
//
//   node --import tsx streaming/streaming.ts serve        # terminal 1 (Ctrl-C stops it)
//   node --import tsx streaming/streaming.ts call         # terminal 2
//
// STREAMING_ADDRESS sets the socket path.
import {
  bidiStreaming,
  defineService,
  jsonCodec,
  messageType,
  serverStreaming,
} from "@nearwire/core";
import { createUdsTransport } from "@nearwire/uds";

const Count = messageType<{ from: number }>("example.Count");
const Tick = messageType<{ n: number }>("example.Tick");
const Line = messageType<{ text: string }>("example.Line");
const Streams = defineService("example.Streams", {
  countdown: serverStreaming(Count, Tick),
  shout: bidiStreaming(Line, Line),
});

const transport = createUdsTransport({
  address: process.env.STREAMING_ADDRESS ?? "/tmp/nearwire-streaming.sock",
});

if (process.argv[2] === "serve") {
  const server = transport.createServer();
  server.addService(
    Streams,
    {
      // A server stream is an async generator: each yield is one message to the client.
      countdown: async function* ({ from }) {
        for (let n = from; n >= 0; n--) yield { n };
      },
      // Bidi: read the client's messages as they come, answer each one at once.
      shout: async function* (lines) {
        for await (const { text } of lines) yield { text: text.toUpperCase() };
      },
    },
    { codec: jsonCodec },
  );
  await server.listen();
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => void server.close({ graceMs: 1000 }));
  console.log(`serving on ${server.address}`);
} else {
  await using connection = await transport.connect();
  const streams = connection.client(Streams, { codec: jsonCodec });

  const ticks: number[] = [];
  for await (const { n } of streams.countdown({ from: 5 }, { timeoutMs: 5000 })) ticks.push(n);
  console.log("countdown:", ticks.join(" "));

  // The requests are an async generator too: the client sends while it reads the answers.
  async function* lines() {
    for (const text of ["hello", "streaming", "world"]) yield { text };
  }
  for await (const { text } of streams.shout(lines(), { timeoutMs: 5000 }))
    console.log("shout:", text);
}
