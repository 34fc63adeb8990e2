import assert from "node:assert/strict";
import { once } from "node:events";
import { it } from "node:test";
import { MessageChannel, Worker } from "node:worker_threads";

const PAIR = new URL("./fixtures/pair-worker.mjs", import.meta.url);

// Issue 16: rings between two workers, the main thread only introducing them (it hands each a
// MessagePort of one MessageChannel and then stays out of the way).
for (const wait of ["adaptive"] as const) {
  it(`a worker calls a server in another worker over rings (${wait}): four call kinds and a 4 MiB message`, async () => {
    const { port1, port2 } = new MessageChannel();
    const server = new Worker(PAIR, {
      workerData: { role: "server", port: port1, wait },
      transferList: [port1],
    });
    try {
      const [listening] = (await once(server, "message")) as [{ listening?: boolean }];
      assert.equal(listening.listening, true);
      const client = new Worker(PAIR, {
        workerData: { role: "client", port: port2, wait },
        transferList: [port2],
      });
      try {
        const [result] = (await once(client, "message")) as [{ ok: boolean; details: string[] }];
        assert.deepEqual(result, {
          ok: true,
          details: [
            "echo from worker B",
            "count 1000",
            "sum 1000",
            "bidi 1000",
            `big ${4 * 1024 * 1024 - 64}`,
          ],
        });
      } finally {
        await client.terminate();
      }
      server.postMessage("close");
      const [closed] = (await once(server, "message")) as [{ closed?: boolean }];
      assert.equal(closed.closed, true);
    } finally {
      await server.terminate();
    }
  });
}
