/**
 * creditWindowCheck: how many messages a sender puts on the way to a receiver that has stopped
 * reading, with or without the receiver's own byte window (PROTOCOL.md §5.4, `CREDIT_WINDOW`),
 * the sender in one process and the receiver in another. The server runs in a child process
 * ({@link credit-window-peer}); the client here.
 */
import { fileURLToPath } from "node:url";
import { clientStreaming, defineService, serverStreaming, unary } from "@nearwire/core";
import { spawnChild } from "./child-process.js";
import { Bytes, Count, patterned, sinkCodec } from "./lending-check.js";
import { loadFactory } from "./module-refs.js";
import { createTmpResources } from "./tmp-resources.js";

/**
 * `Emit` streams `count` patterned messages of `size` bytes (the peer prints `YIELDED <n>` after
 * each one its handler hands to the engine); `Take` takes one message, then reads on only once
 * `Release` was called, and answers the count; `Release` lets it.
 */
export const Held = defineService("nearwire.test.Held", {
  Emit: serverStreaming(Count, Bytes),
  Take: clientStreaming(Bytes, Count),
  Release: unary(Count, Count),
});

/** Options of {@link creditWindowCheck}. */
export interface CreditWindowCheckOptions {
  /** URL of the transport's factory module; it must pass `creditWindowBytes` on. */
  factoryModule: string;
  /** Where the server listens. */
  address: string;
  /**
   * Who receives and stops reading after the first message: the server's `Take` handler
   * (`server`: the client sends) or the client reading `Emit` (`client`: the server sends).
   */
  receiver: "server" | "client";
  /** The receiver's byte window; left out, it announces none. */
  creditWindowBytes?: number;
  /** Messages sent (default 60) of this many bytes (default 64 KiB). */
  count?: number;
  size?: number;
}

/**
 * Runs one stream and returns how many messages the sender had sent when it stopped while the
 * receiver waited (sending had stopped for 300 ms; at most 10 s). Every message must then
 * arrive, intact and in order, once the receiver reads on; it throws otherwise.
 */
export async function creditWindowCheck(options: CreditWindowCheckOptions): Promise<number> {
  const count = options.count ?? 60;
  const size = options.size ?? 64 * 1024;
  const window =
    options.creditWindowBytes === undefined ? {} : { creditWindowBytes: options.creditWindowBytes };
  const tmp = createTmpResources();
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  const peer = fileURLToPath(new URL(`./credit-window-peer${ext}`, import.meta.url));
  const serverWindow = options.receiver === "server" ? window : {};
  const server = spawnChild(
    peer,
    [options.factoryModule, options.address, JSON.stringify(serverWindow)],
    tmp,
    [options.factoryModule],
  );
  try {
    const address = (await server.waitForLine("LISTENING ", 60_000)).slice(10);
    const factory = await loadFactory(options.factoryModule);
    const transport = await factory.createTransport(
      address,
      options.receiver === "client" ? window : {},
    );
    const connection = await transport.connect();
    try {
      const client = connection.client(Held, { codec: sinkCodec });
      if (options.receiver === "client") {
        const yielded = () => server.lines().filter((line) => line.startsWith("YIELDED ")).length;
        const it = client.Emit({ count, size })[Symbol.asyncIterator]();
        let n = 0;
        const take = async () => {
          const r = await it.next();
          if (r.done === true) return false;
          const want = patterned(n++, size);
          if (!r.value.every((b, j) => b === want[j]) || r.value.byteLength !== size)
            throw new Error(`message ${n - 1} arrived changed`);
          return true;
        };
        await take();
        const held = await whenSteady(yielded);
        while (await take());
        if (n !== count) throw new Error(`${n} of ${count} messages arrived`);
        return held;
      }
      let pulled = 0;
      async function* source() {
        for (let i = 0; i < count; i++) {
          pulled = i + 1;
          yield patterned(i, size);
        }
      }
      const reply = client.Take(source());
      // Pulled: the messages sent, and the next one, waiting for credit.
      const held = (await whenSteady(() => pulled)) - 1;
      await client.Release({ count: 0 });
      const got = await reply;
      if (got.count !== count) throw new Error(`${got.count} of ${count} messages arrived`);
      return held;
    } finally {
      await connection.close();
    }
  } finally {
    server.signal("SIGTERM");
    await server.exited;
    await tmp.cleanup();
  }
}

/** Waits until `count()` has not changed for 300 ms (at most 10 s), and returns it. */
async function whenSteady(count: () => number): Promise<number> {
  const deadline = Date.now() + 10_000;
  let last = count();
  let since = Date.now();
  while (Date.now() - since < 300 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    if (count() !== last) {
      last = count();
      since = Date.now();
    }
  }
  return last;
}
