/**
 * The server process of {@link creditWindowCheck}:
 *
 * ```
 * node [--import tsx] credit-window-peer.(ts|js) <factoryModule> <address> <options JSON>
 * ```
 *
 * Serves `nearwire.test.Held` on `address` with the transport options given (JSON: the byte
 * window, or `{}`), prints `LISTENING <address>`, then `YIELDED <n>` after each message `Emit`
 * hands to the engine; runs until SIGTERM. `Take` checks each message it reads.
 */
import { Held } from "./credit-window-check.js";
import { patterned, sinkCodec } from "./lending-check.js";
import { loadFactory } from "./module-refs.js";

const [factoryModule, address, options = "{}"] = process.argv.slice(2);
if (factoryModule === undefined || address === undefined)
  throw new Error("usage: credit-window-peer <factoryModule> <address> [<options JSON>]");
const factory = await loadFactory(factoryModule);
const transport = await factory.createTransport(address, JSON.parse(options));
let release!: () => void;
const released = new Promise<void>((resolve) => {
  release = resolve;
});
const server = transport.createServer();
server.addService(
  Held,
  {
    async *Emit(req) {
      for (let i = 0; i < req.count; i++) {
        yield patterned(i, req.size ?? 0);
        console.log(`YIELDED ${i + 1}`);
      }
    },
    async Take(messages) {
      let count = 0;
      for await (const m of messages) {
        if (count === 0) await released;
        const want = patterned(count, m.byteLength);
        if (!m.every((b, j) => b === want[j])) throw new Error(`message ${count} arrived changed`);
        count++;
      }
      return { count };
    },
    Release(req) {
      release();
      return req;
    },
  },
  { codec: sinkCodec },
);
await server.listen();
process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
console.log(`LISTENING ${server.address}`);
