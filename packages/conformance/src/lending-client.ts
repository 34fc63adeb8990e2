/**
 * The client of {@link lendingCheck}, run as a child process:
 *
 * ```
 * node --import tsx lending-client.(ts|js) <factoryModule> <address> <count> <size>
 * ```
 *
 * Streams `count` messages of `size` bytes (`patterned`) to `nearwire.test.Sink/Take`, prints
 * the reply's count as one line `COUNT <n>`.
 */
import { patterned, Sink, sinkCodec } from "./lending-check.js";
import { loadFactory } from "./module-refs.js";

const [factoryModule, address, count, size] = process.argv.slice(2);
if (factoryModule === undefined || address === undefined || size === undefined)
  throw new Error("usage: lending-client <factoryModule> <address> <count> <size>");
const factory = await loadFactory(factoryModule);
const connection = await (await factory.createTransport(address)).connect();
try {
  async function* messages() {
    for (let i = 0; i < Number(count); i++) yield patterned(i, Number(size));
  }
  const reply = await connection.client(Sink, { codec: sinkCodec }).Take(messages());
  console.log(`COUNT ${reply.count}`);
} finally {
  await connection.close();
}
