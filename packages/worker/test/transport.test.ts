import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MessageChannel, type Worker } from "node:worker_threads";
import {
  conformanceService,
  createConformanceHandlers,
  type StreamItem,
} from "@nearwire/conformance";
import { type ClientConnection, Code, jsonCodec, type NearwireError } from "@nearwire/core";
import { createWorkerTransport, type WaitMode } from "../src/index.js";
import { faultService } from "./support/fault-service.js";
import { eventually, resources, startPeer } from "./support/workers.js";

/** Connects to a fresh rpc peer worker; `run` gets the connection; everything is torn down. */
async function withPeer(
  wait: WaitMode,
  run: (conn: ClientConnection, worker: Worker) => Promise<void>,
): Promise<void> {
  const worker = startPeer({ role: "rpc", wait });
  try {
    const conn = await createWorkerTransport({ port: worker, wait }).connect();
    try {
      await run(conn, worker);
    } finally {
      await conn.close();
    }
  } finally {
    await worker.terminate();
  }
}

const items = (n: number): StreamItem[] =>
  Array.from({ length: n }, (_, seq) => ({ seq, text: `item ${seq}`, note: "" }));

describe("worker transport: main thread calls a server in a worker", () => {
  for (const wait of ["spin", "park", "adaptive"] as const) {
    it(`runs all four call kinds (${wait})`, async () => {
      await withPeer(wait, async (conn) => {
        const c = conn.client(conformanceService, { codec: jsonCodec });
        assert.deepEqual(await c.echo({ id: 7, text: "hi" }), { id: 7, text: "hi" });
        const counted: number[] = [];
        for await (const item of c.count({
          tag: "",
          n: 500,
          payloadBytes: 8,
          failAfter: 0,
          failCode: 0,
        }))
          counted.push(item.seq);
        assert.deepEqual(
          counted,
          Array.from({ length: 500 }, (_, i) => i),
        );
        const sum = await c.sum(items(1000));
        assert.equal(sum.count, 1000);
        assert.equal(sum.firstBadSeq, -1);
        const back: number[] = [];
        for await (const item of c.bidi(items(1000))) back.push(item.seq);
        assert.equal(back.length, 1000);
        assert.ok(back.every((s, i) => s === i));
        await assert.rejects(
          c.fail({ code: Code.NotFound, message: "nope", trailers: {} }),
          (e: NearwireError) => e.code === Code.NotFound,
        );
      });
    });
  }

  it("carries 1 MiB messages both ways", async () => {
    await withPeer("adaptive", async (conn) => {
      const c = conn.client(conformanceService, { codec: jsonCodec });
      const text = "x".repeat(1024 * 1024);
      for (let i = 0; i < 5; i++) {
        const reply = await c.echo({ id: i, text });
        assert.equal(reply.text.length, text.length);
        assert.equal(reply.id, i);
      }
      const generated = await c.generate({ id: 1, textLength: 1024 * 1024 });
      assert.equal(generated.text.length, 1024 * 1024);
    });
  });

  // Issue 15: the same 4 MiB default as uds and grpc-uds, whatever the ring size (fragments).
  for (const ringBytes of [4 * 1024 * 1024, 64 * 1024]) {
    it(`a 4 MiB message goes each way over ${ringBytes >= 1 << 20 ? `${ringBytes >> 20} MiB` : `${ringBytes >> 10} KiB`} rings; 4 MiB + 1 fails RESOURCE_EXHAUSTED and the connection stays usable`, async () => {
      const worker = startPeer({ role: "rpc", wait: "adaptive" });
      try {
        const conn = await createWorkerTransport({ port: worker, ringBytes }).connect();
        const c = conn.client(conformanceService, { codec: jsonCodec });
        const limit = 4 * 1024 * 1024;
        // {"id":1,"text":"…"} is 19 bytes of JSON around the text.
        const overhead = new TextEncoder().encode(JSON.stringify({ id: 1, text: "" })).byteLength;
        const text = "y".repeat(limit - overhead);
        const reply = await c.echo({ id: 1, text });
        assert.equal(reply.text, text);
        const generated = await c.generate({ id: 1, textLength: limit - overhead });
        assert.equal(generated.text.length, limit - overhead);
        await assert.rejects(c.echo({ id: 2, text: `${text}y` }), (e: NearwireError) => {
          assert.equal(e.code, Code.ResourceExhausted);
          return true;
        });
        await assert.rejects(
          c.generate({ id: 3, textLength: limit - overhead + 1 }),
          (e: NearwireError) => {
            assert.equal(e.code, Code.ResourceExhausted);
            return true;
          },
        );
        assert.deepEqual(await c.echo({ id: 4, text: "ok" }), { id: 4, text: "ok" });
        await conn.close();
      } finally {
        await worker.terminate();
      }
    });
  }

  it("100 concurrent calls on one connection", async () => {
    await withPeer("park", async (conn) => {
      const c = conn.client(conformanceService, { codec: jsonCodec });
      const replies = await Promise.all(
        Array.from({ length: 100 }, (_, id) => c.echo({ id, text: String(id) })),
      );
      assert.ok(replies.every((r, id) => r.id === id && r.text === String(id)));
    });
  });
});

describe("worker transport: the worker goes away", () => {
  for (const how of ["terminate", "crash", "exit"] as const) {
    it(`${how} mid-call: the call fails UNAVAILABLE, the connection closes, nothing leaks`, async () => {
      const before = resources();
      const worker = startPeer({ role: "rpc", wait: "park" });
      const conn = await createWorkerTransport({ port: worker, wait: "park" }).connect();
      const c = conn.client(faultService, { codec: jsonCodec });
      const conf = conn.client(conformanceService, { codec: jsonCodec });
      assert.equal((await conf.echo({ id: 1, text: "up" })).text, "up");
      const pending = [c.hang({}), conf.sleep({ tag: "", ms: 60_000 })];
      if (how === "terminate") {
        setImmediate(() => void worker.terminate());
      } else {
        pending.push(how === "crash" ? c.crash({}) : c.exit({}));
      }
      for (const call of pending) {
        await assert.rejects(call, (e: NearwireError) => e.code === Code.Unavailable);
      }
      await conn.closed;
      await assert.rejects(
        conf.echo({ id: 2, text: "after" }),
        (e: NearwireError) => e.code === Code.Unavailable,
      );
      await conn.close();
      await worker.terminate();
      await eventually(() => assert.deepEqual(resources(), before));
    });
  }
});

describe("worker transport over a MessageChannel (as two workers would hold it)", () => {
  it("serves on one end, calls from the other; closing the server side fails calls UNAVAILABLE", async () => {
    const before = resources();
    const { port1, port2 } = new MessageChannel();
    const server = createWorkerTransport({ port: port1, wait: "park" }).createServer();
    server.addService(conformanceService, createConformanceHandlers(), { codec: jsonCodec });
    await server.listen();
    const conn = await createWorkerTransport({ port: port2, wait: "park" }).connect();
    const c = conn.client(conformanceService, { codec: jsonCodec });
    assert.equal((await c.echo({ id: 3, text: "peer" })).text, "peer");
    const sleeping = c.sleep({ tag: "", ms: 60_000 });
    await server.close({ graceMs: 0 });
    await assert.rejects(sleeping, (e: NearwireError) => e.code === Code.Unavailable);
    await conn.close();
    port1.close();
    await eventually(() => assert.deepEqual(resources(), before));
  });
});
