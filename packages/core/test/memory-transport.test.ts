import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  bidiStreaming,
  Code,
  clientStreaming,
  createMemoryTransport,
  defineService,
  type HandlerContext,
  jsonCodec,
  messageType,
  NearwireError,
  serverStreaming,
  unary,
} from "../src/index.js";
import { DeadlineTimer } from "../src/rpc/deadline-timer.js";

interface Num {
  n: number;
}
const NumT = messageType<Num>("test.Num");
const Svc = defineService("test.Mem", {
  echo: unary(NumT, NumT),
  slow: unary(NumT, NumT),
  deadline: unary(NumT, NumT),
  count: serverStreaming(NumT, NumT),
  sum: clientStreaming(NumT, NumT),
  bidi: bidiStreaming(NumT, NumT),
});

const seen = { produced: 0, aborted: 0 };

async function started() {
  const transport = createMemoryTransport();
  const server = transport.createServer().addService(
    Svc,
    {
      echo: (req) => {
        if (req.n < 0)
          throw new NearwireError(-req.n as Code, "as asked", { metadata: { k: "v" } });
        return { n: req.n + 1 };
      },
      async slow(req, ctx) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, req.n);
          ctx.signal.addEventListener("abort", () => {
            seen.aborted++;
            clearTimeout(t);
            resolve();
          });
        });
        return req;
      },
      deadline: (_req, ctx: HandlerContext) => ({ n: (ctx.deadline ?? 0) - Date.now() }),
      async *count(req) {
        for (let i = 0; i < req.n; i++) {
          seen.produced = i + 1;
          yield { n: i };
        }
      },
      async sum(reqs) {
        let n = 0;
        for await (const r of reqs) n += r.n;
        return { n };
      },
      async *bidi(reqs) {
        for await (const r of reqs) yield { n: r.n * 2 };
      },
    },
    { codec: jsonCodec },
  );
  await server.listen();
  const conn = await transport.connect();
  const client = conn.client(Svc, { codec: jsonCodec });
  return { transport, server, conn, client };
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const v of it) out.push(v);
  return out;
}

describe("createMemoryTransport (the engine in one process)", () => {
  it("runs all four call kinds through the real engine", async () => {
    const { server, conn, client } = await started();
    assert.deepEqual(await client.echo({ n: 1 }), { n: 2 });
    assert.deepEqual(
      await collect(client.count({ n: 100 })),
      Array.from({ length: 100 }, (_, n) => ({ n })),
    );
    assert.deepEqual(await client.sum([{ n: 1 }, { n: 2 }, { n: 3 }]), { n: 6 });
    assert.deepEqual(await collect(client.bidi([{ n: 1 }, { n: 5 }])), [{ n: 2 }, { n: 10 }]);
    const many = await Promise.all(Array.from({ length: 500 }, (_, n) => client.echo({ n })));
    assert.deepEqual(
      many.map((r) => r.n),
      Array.from({ length: 500 }, (_, n) => n + 1),
    );
    await conn.close();
    await server.close();
  });

  it("carries error codes and trailers; the connection stays usable", async () => {
    const { server, conn, client } = await started();
    await assert.rejects(client.echo({ n: -Code.PermissionDenied }), (e: NearwireError) => {
      assert.equal(e.code, Code.PermissionDenied);
      assert.deepEqual(e.metadata, { k: "v" });
      return true;
    });
    assert.deepEqual(await client.echo({ n: 7 }), { n: 8 });
    await conn.close();
    await server.close();
  });

  it("deadline: DEADLINE_EXCEEDED on the client, the handler aborted", async () => {
    const { server, conn, client } = await started();
    const before = seen.aborted;
    await assert.rejects(client.slow({ n: 5000 }, { timeoutMs: 30 }), {
      code: Code.DeadlineExceeded,
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(seen.aborted, before + 1);
    await conn.close();
    await server.close();
  });

  it("honours timeouts above 2^31 ms (setTimeout's limit) on both sides", async () => {
    const { server, conn, client } = await started();
    const timeoutMs = 2 ** 31 + 60_000;
    const left = await client.deadline({ n: 0 }, { timeoutMs });
    assert.ok(left.n > 2 ** 31, `server sees ${left.n} ms left`);
    // A slow call under that deadline completes instead of expiring at once.
    assert.deepEqual(await client.slow({ n: 30 }, { timeoutMs: 2 ** 32 - 1 }), { n: 30 });
    await conn.close();
    await server.close();
  });

  it("cancellation by AbortSignal reaches the handler", async () => {
    const { server, conn, client } = await started();
    const before = seen.aborted;
    const ac = new AbortController();
    const p = client.slow({ n: 5000 }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 10);
    await assert.rejects(p, { code: Code.Canceled });
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(seen.aborted, before + 1);
    await conn.close();
    await server.close();
  });

  it("stream credit: a server stream nobody reads stops after the window", async () => {
    const { server, conn, client } = await started();
    seen.produced = 0;
    const it = client.count({ n: 10_000 })[Symbol.asyncIterator]();
    await it.next();
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(seen.produced <= 70, `produced ${seen.produced} with 1 read`);
    await it.return?.();
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
    const pending = client.slow({ n: 10_000 });
    await new Promise((r) => setTimeout(r, 10));
    await server.close({ graceMs: 0 });
    await assert.rejects(pending, { code: Code.Unavailable });
    assert.ok((await conn.closed) instanceof NearwireError);
    await assert.rejects(client.echo({ n: 1 }), { code: Code.Unavailable });
  });

  it("a message over maxMessageBytes fails its call RESOURCE_EXHAUSTED, not the connection", async () => {
    const transport = createMemoryTransport({ maxMessageBytes: 1024 });
    const server = transport.createServer().addService(
      Svc,
      {
        echo: (r) => r,
        slow: (r) => r,
        deadline: (r) => r,
        async *count() {},
        sum: async () => ({ n: 0 }),
        async *bidi() {},
      },
      { codec: jsonCodec },
    );
    await server.listen();
    const conn = await transport.connect();
    const big = { n: 1, pad: "x".repeat(2000) } as Num;
    const client = conn.client(Svc, { codec: jsonCodec });
    await assert.rejects(client.echo(big), {
      code: Code.ResourceExhausted,
      reason: "message-too-large",
    });
    assert.deepEqual(await client.echo({ n: 3 }), { n: 3 });
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
      assert.deepEqual(await client.slow({ n: 5 }, { timeoutMs }), { n: 5 });
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
    const garbled = conn.client(Svc, { codec: broken as never });
    await assert.rejects(garbled.echo({ n: 1 }), {
      code: Code.InvalidArgument,
      reason: "decode-failed",
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
});
