import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Code, createMemoryTransport, jsonCodec, NearwireError } from "../src/index.js";
import { memoryChannelPair } from "../src/memory/memory-channel.js";
import { DeadlineTimer } from "../src/rpc/deadline-timer.js";
import { defineService, serverStreaming, unary } from "../src/service.js";
import { engineCases } from "./support/engine-cases.js";
import { type Num, NumService, NumT, numHandlers, type Seen } from "./support/num-service.js";

const seenNothing = (): Seen => ({ produced: 0, aborted: 0 });

async function started(batches = true) {
  const seen: Seen = { produced: 0, aborted: 0 };
  const transport = createMemoryTransport({ batches });
  const server = transport.createServer().addService(NumService, numHandlers(seen), {
    codec: jsonCodec,
  });
  await server.listen();
  const conn = await transport.connect();
  const client = conn.client(NumService, { codec: jsonCodec });
  return { transport, server, conn, client, seen };
}

// Streams travel in BATCH frames by default; without them, one MESSAGE per message.
for (const batches of [true, false]) {
  engineCases(`memory transport${batches ? "" : " without BATCH"}`, async () => {
    const { server, conn, client, seen } = await started(batches);
    return {
      client,
      seen,
      async close() {
        await conn.close();
        await server.close();
      },
    };
  });
}

describe("createMemoryTransport (the engine in one process)", () => {
  it("honours timeouts above 2^31 ms (setTimeout's limit) on both sides", async () => {
    const { server, conn, client } = await started();
    const timeoutMs = 2 ** 31 + 60_000;
    const left = await client.deadline({ n: 0 }, { timeoutMs });
    assert.ok(left.n > 2 ** 31, `server sees ${left.n} ms left`);
    // A slow call under that deadline completes instead of expiring at once.
    assert.deepEqual(await client.sleep({ n: 30 }, { timeoutMs: 2 ** 32 - 1 }), { n: 30 });
    await conn.close();
    await server.close();
  });

  it("connect without a listener is UNAVAILABLE; a second listener is ALREADY_EXISTS", async () => {
    const transport = createMemoryTransport();
    await assert.rejects(transport.connect(), { code: Code.Unavailable });
    const a = transport.createServer();
    await a.listen();
    await assert.rejects(transport.createServer().listen(), { code: Code.AlreadyExists });
    await a.close();
    await assert.rejects(transport.connect(), { code: Code.Unavailable });
  });

  it("closing the server fails the client's pending calls UNAVAILABLE and resolves closed", async () => {
    const { server, conn, client } = await started();
    const pending = client.sleep({ n: 10_000 });
    await new Promise((r) => setTimeout(r, 10));
    await server.close({ graceMs: 0 });
    await assert.rejects(pending, { code: Code.Unavailable });
    assert.ok((await conn.closed) instanceof NearwireError);
    await assert.rejects(client.echo({ n: 1 }), { code: Code.Unavailable });
  });

  it("a message over maxMessageBytes fails its call RESOURCE_EXHAUSTED, not the connection", async () => {
    const transport = createMemoryTransport({ maxMessageBytes: 1024 });
    const server = transport.createServer().addService(NumService, numHandlers(seenNothing()), {
      codec: jsonCodec,
    });
    await server.listen();
    const conn = await transport.connect();
    const big = { n: 1, pad: "x".repeat(2000) } as Num;
    const client = conn.client(NumService, { codec: jsonCodec });
    await assert.rejects(client.echo(big), {
      code: Code.ResourceExhausted,
      reason: "message-too-large",
    });
    assert.deepEqual(await client.echo({ n: 3 }), { n: 4 });
    await conn.close();
    await server.close();
  });
});

describe("createMemoryTransport: the rules every transport shares (issue 15)", () => {
  it("timeoutMs ≤ 0 fails at once DEADLINE_EXCEEDED, NaN INVALID_ARGUMENT; 2^31 and 2^32 − 1 are honoured", async () => {
    const { server, conn, client } = await started();
    for (const timeoutMs of [0, -1, Number.NEGATIVE_INFINITY]) {
      await assert.rejects(client.echo({ n: 1 }, { timeoutMs }), { code: Code.DeadlineExceeded });
    }
    await assert.rejects(client.echo({ n: 1 }, { timeoutMs: Number.NaN }), {
      code: Code.InvalidArgument,
    });
    for (const timeoutMs of [2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 33]) {
      assert.deepEqual(await client.sleep({ n: 5 }, { timeoutMs }), { n: 5 });
    }
    await conn.close();
    await server.close();
  });

  it("a request the server cannot decode: INVALID_ARGUMENT decode-failed", async () => {
    const { server, conn } = await started();
    const broken = {
      ...jsonCodec,
      forType: () => ({
        encode: () => new Uint8Array([0xc1]),
        decode: () => ({}),
        decodesInPlace: false,
      }),
    };
    const garbled = conn.client(NumService, { codec: broken as never });
    await assert.rejects(garbled.echo({ n: 1 }), {
      code: Code.InvalidArgument,
      reason: "decode-failed",
    });
    await conn.close();
    await server.close();
  });

  it("codec mismatch: the error says which codec each side speaks", async () => {
    const { server, conn } = await started();
    const msgpackish = {
      ...jsonCodec,
      name: "msgpack",
      forType: () => ({
        encode: () => new Uint8Array([0x81, 0xa1, 0x6e, 0x01]),
        decode: () => ({}),
        decodesInPlace: false,
      }),
    };
    const other = conn.client(NumService, { codec: msgpackish as never });
    await assert.rejects(other.echo({ n: 1 }), (e: NearwireError) => {
      assert.equal(e.code, Code.InvalidArgument);
      assert.equal(e.reason, "codec-mismatch");
      assert.match(e.message, /^client speaks msgpack, server json: /);
      assert.deepEqual(e.metadata, {});
      return true;
    });
    await conn.close();
    await server.close();
  });

  it("connect with no server: UNAVAILABLE nothing-listens, and the message says so", async () => {
    await assert.rejects(createMemoryTransport().connect(), (e: NearwireError) => {
      assert.equal(e.code, Code.Unavailable);
      assert.equal(e.reason, "nothing-listens");
      assert.match(e.message, /nothing listens on this memory transport — is the server running\?/);
      return true;
    });
  });
});

describe("DeadlineTimer", () => {
  it("chains timers past the single-timer limit and fires once, not before its time", async () => {
    const t0 = Date.now();
    let fired = 0;
    await new Promise<void>((resolve) => {
      new DeadlineTimer(
        45,
        () => {
          fired++;
          resolve();
        },
        10,
      );
    });
    assert.ok(Date.now() - t0 >= 44, `fired after ${Date.now() - t0} ms`);
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(fired, 1);
  });

  it("clear() stops a chained timer", async () => {
    let fired = 0;
    const t = new DeadlineTimer(25, () => fired++, 10);
    await new Promise((r) => setTimeout(r, 12));
    t.clear();
    await new Promise((r) => setTimeout(r, 40));
    assert.equal(fired, 0);
  });

  it("a streaming handler whose result cannot be iterated fails that call UNKNOWN; the connection stays usable", async () => {
    const Svc = defineService("test.BadStream", {
      bad: serverStreaming(NumT, NumT),
      ok: unary(NumT, NumT),
    });
    const transport = createMemoryTransport();
    const server = transport.createServer().addService(
      Svc,
      {
        bad: () =>
          ({
            [Symbol.asyncIterator]() {
              throw new Error("no iterator today");
            },
          }) as unknown as AsyncIterable<Num>,
        ok: (n: Num) => n,
      },
      { codec: jsonCodec },
    );
    await server.listen();
    const conn = await transport.connect();
    const client = conn.client(Svc, { codec: jsonCodec });
    await assert.rejects(
      async () => {
        for await (const _ of client.bad({ n: 1 })) {
        }
      },
      (e: NearwireError) => e.code === Code.Unknown && /no iterator today/.test(e.message),
    );
    assert.deepEqual(await client.ok({ n: 7 }), { n: 7 });
    await conn.close();
    await server.close();
  });
});

describe("memoryChannelPair: delivery batches", () => {
  it("a receiver that pauses inside onFrame gets the rest of the batch, in order, after resume; later batches too", async () => {
    const [a, b] = memoryChannelPair({ maxPayloadBytes: 1024, highWaterMarkBytes: 1 << 20 });
    const got: number[] = [];
    b.start({
      onFrame: (_type, payload) => {
        got.push(payload[0] as number);
        if (got.length === 3) b.pause();
      },
      onClose: () => {},
    });
    a.start({ onFrame: () => {}, onClose: () => {} });
    const send = (from: number, to: number) => {
      for (let i = from; i < to; i++) a.send(0x80, Uint8Array.of(i));
    };
    send(0, 10);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(got, [0, 1, 2], "paused after the third frame of the batch");
    send(10, 12); // queued behind the held frames
    b.resume();
    await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(
      got,
      Array.from({ length: 12 }, (_, i) => i),
    );
    // Later batches reuse the delivered batch's arrays: still every frame, in order.
    for (let round = 0; round < 3; round++) {
      send(12 + round * 50, 12 + (round + 1) * 50);
      await new Promise((r) => setTimeout(r, 2));
    }
    assert.deepEqual(
      got,
      Array.from({ length: 162 }, (_, i) => i),
    );
    await a.close();
  });
});
