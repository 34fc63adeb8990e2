import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { conformanceService } from "@nearwire/conformance";
import { Code, jsonCodec, type NearwireError } from "@nearwire/core";
import { createWorkerPool, type WorkerPool, type WorkerPoolOptions } from "../src/index.js";
import { faultService } from "./support/fault-service.js";
import { eventually, resources } from "./support/workers.js";

const PEER = new URL("./fixtures/peer-worker.mjs", import.meta.url);

/** What peer-worker's next starts do (control[0]: 0 serve, 1 never listen, 2 throw). */
const SERVE = 0;
const HANG = 1;
const THROW = 2;

/**
 * A pool of `size` peer workers sharing `control` (control[1] counts starts). No test adds an
 * `'error'` listener to a worker: one that reached the process would end this test run.
 */
async function withPool(
  size: number,
  options: Partial<WorkerPoolOptions> & { resourceLimits?: { maxOldGenerationSizeMb: number } },
  run: (pool: WorkerPool, control: Int32Array) => Promise<void>,
): Promise<void> {
  const before = resources();
  const control = new Int32Array(new SharedArrayBuffer(8));
  const { resourceLimits, ...rest } = options;
  const pool = await createWorkerPool({
    file: PEER,
    size,
    workerOptions: {
      workerData: { role: "rpc", wait: "park", control },
      ...(resourceLimits === undefined ? {} : { resourceLimits }),
    },
    wait: "park",
    restartDelayMs: 20,
    ...rest,
  });
  try {
    await run(pool, control);
  } finally {
    await pool.close();
  }
  await eventually(() => assert.deepEqual(resources(), before));
}

/** Waits until `check` passes, for at most `ms` (workers start in about a second under tsx). */
async function waitFor(check: () => void, ms = 15_000): Promise<void> {
  const until = performance.now() + ms;
  for (;;) {
    try {
      check();
      return;
    } catch (err) {
      if (performance.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

const isCode = (code: Code, reason?: string) => (e: NearwireError) => {
  assert.equal(e.code, code);
  if (reason !== undefined) assert.equal(e.reason, reason);
  return true;
};

/** Calls served by each slot's current worker so far. */
async function served(pool: WorkerPool): Promise<number[]> {
  const stats = await Promise.all(
    pool.connections.map((conn) =>
      conn.client(conformanceService, { codec: jsonCodec }).stats({ tag: "" }),
    ),
  );
  return stats.map((s) => s.callsStarted);
}

describe("worker pool: a worker's death", () => {
  for (const death of ["crash", "exit", "oom"] as const) {
    const what = {
      crash: "an uncaught throw outside any handler",
      exit: "process.exit(3)",
      oom: "running out of its heap (resourceLimits)",
    }[death];
    it(`${what} fails only that worker's calls (UNAVAILABLE peer-closed); it is replaced`, async () => {
      const limits = death === "oom" ? { resourceLimits: { maxOldGenerationSizeMb: 64 } } : {};
      await withPool(2, limits, async (pool, control) => {
        const c = pool.client(conformanceService, { codec: jsonCodec });
        const dying = pool.workers[0];
        const [conn0, conn1] = pool.connections;
        assert.ok(conn0 !== undefined && conn1 !== undefined && dying !== undefined);
        // In flight when worker 0 dies: a call on worker 0 (fails) and one on worker 1 (answers).
        const lost = conn0.client(conformanceService, { codec: jsonCodec }).sleep({
          tag: "",
          ms: 30_000,
        });
        const kept = conn1.client(conformanceService, { codec: jsonCodec }).sleep({
          tag: "kept",
          ms: 300,
        });
        const fault = conn0.client(faultService, { codec: jsonCodec });
        await assert.rejects(fault[death]({}), isCode(Code.Unavailable, "peer-closed"));
        await assert.rejects(lost, isCode(Code.Unavailable, "peer-closed"));
        assert.equal((await kept).tag, "kept");
        // The pool serves on while worker 0 is replaced, and then on both.
        for (let i = 0; i < 6; i++) assert.equal((await c.echo({ id: i, text: "x" })).id, i);
        await waitFor(() => assert.notEqual(pool.connections[0], conn0));
        assert.notEqual(pool.workers[0], dying);
        assert.equal(Atomics.load(control, 1), 3, "two starts and one replacement");
        const before = await served(pool);
        for (let i = 0; i < 8; i++) await c.echo({ id: i, text: "y" });
        const after = await served(pool);
        assert.deepEqual(
          after.map((n, i) => n - (before[i] ?? 0)),
          [4, 4],
          "8 echoes spread over both workers",
        );
      });
    });
  }

  it("a replacement that never answers its set-up is ended and retried; the others serve", async () => {
    // The set-up limit also bounds the first two workers' start, which takes seconds under tsx
    // on a loaded 2-core machine: 5 s, not less.
    await withPool(2, { handshakeTimeoutMs: 5000 }, async (pool, control) => {
      const c = pool.client(conformanceService, { codec: jsonCodec });
      const conn0 = pool.connections[0];
      Atomics.store(control, 0, HANG);
      await assert.rejects(
        pool.connections[0]?.client(faultService, { codec: jsonCodec }).exit({}) ??
          Promise.resolve(),
        isCode(Code.Unavailable, "peer-closed"),
      );
      // The hung replacement has read its mode once it counted its start; the retry serves.
      let calls = 0;
      const call = async () => {
        assert.equal((await c.echo({ id: calls, text: "x" })).id, calls);
        calls++;
        await new Promise((r) => setTimeout(r, 10));
      };
      while (Atomics.load(control, 1) < 3) await call();
      Atomics.store(control, 0, SERVE);
      // The hung one sits out its 5 s set-up limit, then is ended; every call still answers.
      const until = performance.now() + 20_000;
      while (pool.connections[0] === conn0 && performance.now() < until) await call();
      assert.notEqual(pool.connections[0], conn0, "a replacement took the slot");
      assert.equal(Atomics.load(control, 1), 4, "no hung worker got a connection: its retry did");
      assert.ok(calls > 20, `${calls} calls answered while the replacement hung`);
      const before = await served(pool);
      for (let i = 0; i < 4; i++) await c.echo({ id: i, text: "y" });
      const after = await served(pool);
      assert.deepEqual(
        after.map((n, i) => n - (before[i] ?? 0)),
        [2, 2],
        "the replacement serves its share",
      );
    });
  });

  it("a crash loop stops restarting and fails calls UNAVAILABLE crash-loop", async () => {
    await withPool(2, { maxRestarts: 2, restartDelayMs: 10 }, async (pool, control) => {
      const c = pool.client(conformanceService, { codec: jsonCodec });
      Atomics.store(control, 0, THROW); // every replacement throws before it listens
      for (const conn of pool.connections)
        await assert.rejects(
          conn.client(faultService, { codec: jsonCodec }).crash({}),
          isCode(Code.Unavailable, "peer-closed"),
        );
      // Each slot: its death, two restarts that throw, then no more (2 + 2 × 2 starts).
      await waitFor(() => assert.equal(Atomics.load(control, 1), 6));
      await waitFor(() => assert.ok(pool.workers.every((w) => w.threadId === -1)));
      await assert.rejects(c.echo({ id: 1, text: "x" }), isCode(Code.Unavailable, "crash-loop"));
      await assert.rejects(
        c.sum([{ seq: 0, text: "", note: "" }]),
        isCode(Code.Unavailable, "crash-loop"),
      );
      await assert.rejects(
        async () => {
          for await (const _ of c.count({
            tag: "",
            n: 2,
            payloadBytes: 0,
            failAfter: 0,
            failCode: 0,
          }));
        },
        isCode(Code.Unavailable, "crash-loop"),
      );
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(Atomics.load(control, 1), 6, "no start after the slots gave up");
    });
  });

  it("a pool with every worker being replaced fails calls UNAVAILABLE peer-closed", async () => {
    await withPool(1, { restartDelayMs: 400 }, async (pool) => {
      const c = pool.client(conformanceService, { codec: jsonCodec });
      const conn0 = pool.connections[0];
      await assert.rejects(
        conn0?.client(faultService, { codec: jsonCodec }).exit({}) ?? Promise.resolve(),
        isCode(Code.Unavailable, "peer-closed"),
      );
      await conn0?.closed;
      await assert.rejects(c.echo({ id: 1, text: "x" }), isCode(Code.Unavailable, "peer-closed"));
      await waitFor(() => assert.notEqual(pool.connections[0], conn0));
      assert.equal((await c.echo({ id: 2, text: "back" })).text, "back");
    });
  });

  it("a first set-up that fails rejects the pool and ends every worker it started", async () => {
    const before = resources();
    const control = new Int32Array(new SharedArrayBuffer(8));
    Atomics.store(control, 0, THROW);
    await assert.rejects(
      createWorkerPool({
        file: PEER,
        size: 2,
        workerOptions: { workerData: { role: "rpc", wait: "park", control } },
      }),
      isCode(Code.Unavailable, "peer-closed"),
    );
    await eventually(() => assert.deepEqual(resources(), before));
  });

  it("bad restart options are INVALID_ARGUMENT and start no worker", async () => {
    const before = resources();
    for (const bad of [
      { maxRestarts: -1 },
      { restartWindowMs: Number.NaN },
      { restartDelayMs: 1.5 },
    ])
      await assert.rejects(
        createWorkerPool({ file: PEER, size: 1, ...bad }),
        isCode(Code.InvalidArgument),
      );
    assert.deepEqual(resources(), before);
  });

  it("the parent process survives a worker's uncaught throw (no 'error' listener of its own)", () => {
    const child = spawnSync(
      process.execPath,
      ["--import", "tsx", fileURLToPath(new URL("./fixtures/pool-crash-main.ts", import.meta.url))],
      { encoding: "utf8", timeout: 60_000 },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout.trim()), {
      failed: { code: Code.Unavailable, reason: "peer-closed" },
      echoes: [0, 1, 2, 3],
    });
  });
});
