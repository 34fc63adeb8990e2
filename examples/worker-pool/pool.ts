// A worker pool: two worker threads serve Greeter; the pool sends each call to the next worker.
// One process, no socket: the calls travel over SharedArrayBuffer rings.
//
//   node --import tsx worker-pool/pool.ts
import { jsonCodec } from "@nearwire/core";
import { createWorkerPool } from "@nearwire/worker";
import { Greeter } from "./greeter.js";

await using pool = await createWorkerPool({
  file: new URL("./greeter-worker.mjs", import.meta.url),
  size: 2,
});
const greeter = pool.client(Greeter, { codec: jsonCodec });
const names = ["Ada", "Grace", "Edsger", "Barbara"];
const replies = await Promise.all(
  names.map((name) => greeter.say({ name }, { timeoutMs: 10_000 })),
);
for (const reply of replies) console.log(`${reply.text} (worker thread ${reply.thread})`);
// The end of the scope closes the connections and terminates the workers.
