/**
 * The other process of {@link lendingCheck}:
 *
 * ```
 * node [--import tsx] lending-peer.(ts|js) client <factoryModule> <address> <count> <size> [<calls>]
 * node [--import tsx] lending-peer.(ts|js) server <factoryModule> <address>
 * ```
 *
 * `client` streams `count` messages of `size` bytes (`patterned`) to `nearwire.test.Sink/Take`,
 * in `calls` calls one after another (default 1), and prints the last reply's count as one line
 * `COUNT <n>`. `server` serves `Sink.Emit` (the
 * requested count of patterned messages) on `address`, prints `LISTENING <address>` and runs
 * until SIGTERM.
 */
import { patterned, Sink, sinkCodec } from "./lending-check.js";
import { loadFactory } from "./module-refs.js";

const [mode, factoryModule, address, count, size, calls = "1"] = process.argv.slice(2);
if (factoryModule === undefined || address === undefined)
  throw new Error("usage: lending-peer client|server <factoryModule> <address> [<count> <size>]");
const transport = await (await loadFactory(factoryModule)).createTransport(address);
if (mode === "server") {
  const server = transport.createServer();
  server.addService(
    Sink,
    {
      Take: async () => ({ count: 0 }),
      async *Emit(req) {
        for (let i = 0; i < req.count; i++) yield patterned(i, req.size ?? 0);
      },
    },
    { codec: sinkCodec },
  );
  await server.listen();
  process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
  console.log(`LISTENING ${server.address}`);
} else {
  const connection = await transport.connect();
  try {
    async function* messages(from: number, to: number) {
      for (let i = from; i < to; i++) yield patterned(i, Number(size));
    }
    const client = connection.client(Sink, { codec: sinkCodec });
    const n = Number(count);
    const k = Number(calls);
    let reply = { count: 0 };
    for (let c = 0; c < k; c++)
      reply = await client.Take(messages(Math.floor((n * c) / k), Math.floor((n * (c + 1)) / k)));
    console.log(`COUNT ${reply.count}`);
  } finally {
    await connection.close();
  }
}
