/**
 * The other process of {@link lendingCheck}:
 *
 * ```
 * node --import tsx lending-peer.(ts|js) client <factoryModule> <address> <count> <size>
 * node --import tsx lending-peer.(ts|js) server <factoryModule> <address>
 * ```
 *
 * `client` streams `count` messages of `size` bytes (`patterned`) to `nearwire.test.Sink/Take`
 * and prints the reply's count as one line `COUNT <n>`. `server` serves `Sink.Emit` (the
 * requested count of patterned messages) on `address`, prints `LISTENING <address>` and runs
 * until SIGTERM.
 */
import { patterned, Sink, sinkCodec } from "./lending-check.js";
import { loadFactory } from "./module-refs.js";

const [mode, factoryModule, address, count, size] = process.argv.slice(2);
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
    async function* messages() {
      for (let i = 0; i < Number(count); i++) yield patterned(i, Number(size));
    }
    const reply = await connection.client(Sink, { codec: sinkCodec }).Take(messages());
    console.log(`COUNT ${reply.count}`);
  } finally {
    await connection.close();
  }
}
