import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { conformanceService } from "@nearwire/conformance";
import { Code, jsonCodec, type NearwireError } from "@nearwire/core";
import { createWorkerPool } from "../src/index.js";
import { faultService } from "./support/fault-service.js";
import { eventually, resources } from "./support/workers.js";

const PEER = new URL("./fixtures/peer-worker.mjs", import.meta.url);

describe("worker pool", () => {
  it("spreads calls over its workers and skips one that died until it is replaced", async () => {
    const before = resources();
    const pool = await createWorkerPool({
      file: PEER,
      size: 3,
      workerOptions: { workerData: { role: "rpc", wait: "park" } },
      wait: "park",
    });
    try {
      const c = pool.client(conformanceService, { codec: jsonCodec });
      for (let i = 0; i < 9; i++) await c.sleep({ tag: "", ms: 0 });
      const started = await Promise.all(
        pool.connections.map((conn) =>
          conn.client(conformanceService, { codec: jsonCodec }).stats({ tag: "" }),
        ),
      );
      assert.deepEqual(
        started.map((s) => s.callsStarted),
        [3, 3, 3],
        "each worker served 3 of the 9 calls",
      );
      // One worker dies: the pool goes on with the others.
      const fault = pool.connections[0]?.client(faultService, { codec: jsonCodec });
      await assert.rejects(
        fault?.exit({}) ?? Promise.resolve(),
        (e: NearwireError) => e.code === Code.Unavailable,
      );
      await pool.connections[0]?.closed;
      for (let i = 0; i < 4; i++) assert.equal((await c.echo({ id: i, text: "x" })).id, i);
    } finally {
      await pool.close();
    }
    await eventually(() => assert.deepEqual(resources(), before));
  });

  it("await using closes the pool: connections closed, workers terminated", async () => {
    const before = resources();
    let pool: Awaited<ReturnType<typeof createWorkerPool>> | undefined;
    {
      await using scoped = await createWorkerPool({
        file: PEER,
        size: 2,
        workerOptions: { workerData: { role: "rpc", wait: "park" } },
        wait: "park",
      });
      pool = scoped;
      const c = scoped.client(conformanceService, { codec: jsonCodec });
      assert.equal((await c.echo({ id: 1, text: "scoped" })).text, "scoped");
    }
    for (const conn of pool.connections) assert.equal(await conn.closed, undefined);
    for (const w of pool.workers) assert.equal(w.threadId, -1, "worker terminated");
    await eventually(() => assert.deepEqual(resources(), before));
  });
});
