import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  bidiStreaming,
  Code,
  clientStreaming,
  createMemoryTransport,
  createReconnectingConnection,
  defineService,
  type HandlerContext,
  type Interceptor,
  jsonCodec,
  messageType,
  NearwireError,
  type Server,
  serverStreaming,
  type Transport,
  unary,
} from "../src/index.js";
import { ConnectionBackoff, retryDelayMs } from "../src/reconnect/backoff.js";

const N = messageType<{ n: number }>("t.N");
const Svc = defineService("t.Retry", {
  flaky: unary(N, N),
  once: unary(N, N),
  stream: serverStreaming(N, N),
  sum: clientStreaming(N, N),
  bidi: bidiStreaming(N, N),
});

/** Handlers that fail UNAVAILABLE while `failures` > 0 and record what they saw. */
function handlers(state: { failures: number; calls: number; attempts: string[]; tags: string[] }) {
  const fail = (ctx: HandlerContext) => {
    state.calls++;
    state.tags.push(ctx.metadata["x-tag"] ?? "");
    state.attempts.push(ctx.metadata["grpc-previous-rpc-attempts"] ?? "");
    if (state.failures > 0) {
      state.failures--;
      throw new NearwireError(Code.Unavailable, "try again");
    }
  };
  return {
    flaky: (req: { n: number }, ctx: HandlerContext) => {
      fail(ctx);
      return { n: req.n + 1 };
    },
    once: (req: { n: number }, ctx: HandlerContext) => {
      fail(ctx);
      return { n: req.n + 1 };
    },
    async *stream(req: { n: number }, ctx: HandlerContext) {
      fail(ctx);
      if (req.n < 0) {
        yield { n: 0 };
        throw new NearwireError(Code.Unavailable, "after the first message");
      }
      for (let i = 0; i < req.n; i++) yield { n: i };
    },
    async sum(reqs: AsyncIterable<{ n: number }>, ctx: HandlerContext) {
      let s = 0;
      for await (const r of reqs) s += r.n;
      fail(ctx);
      return { n: s };
    },
    async *bidi(reqs: AsyncIterable<{ n: number }>, ctx: HandlerContext) {
      fail(ctx);
      for await (const r of reqs) yield r;
    },
  };
}

async function serve(transport: Transport, state = newState()): Promise<Server> {
  const server = transport.createServer().addService(Svc, handlers(state), { codec: jsonCodec });
  await server.listen();
  return server;
}

function newState(failures = 0) {
  return { failures, calls: 0, attempts: [] as string[], tags: [] as string[] };
}

const fast = { backoff: { initialMs: 10, maxMs: 50 } };

async function rejectsWith(p: Promise<unknown>, code: Code, reason?: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof NearwireError);
    assert.equal(err.code, code);
    if (reason !== undefined) assert.equal(err.reason, reason);
    return true;
  });
}

describe("createReconnectingConnection", () => {
  it("connects on the first call and reconnects after the server restarts", async () => {
    const transport = createMemoryTransport();
    let server = await serve(transport);
    const conn = createReconnectingConnection(transport, fast);
    assert.equal(conn.state, "idle");
    const client = conn.client(Svc, { codec: jsonCodec });
    assert.deepEqual(await client.once({ n: 1 }), { n: 2 });
    assert.equal(conn.state, "ready");
    await server.close({ graceMs: 0 });
    await rejectsWith(client.once({ n: 1 }), Code.Unavailable);
    server = await serve(transport);
    assert.deepEqual(await client.once({ n: 2 }, { waitForReady: true, timeoutMs: 5000 }), {
      n: 3,
    });
    assert.equal(conn.state, "ready");
    await conn.close();
    assert.equal(await conn.closed, undefined);
    await rejectsWith(client.once({ n: 1 }), Code.Canceled, "closed");
    await server.close();
  });

  it("fails a call in flight UNAVAILABLE exactly once when the connection is lost", async () => {
    const transport = createMemoryTransport();
    const server = transport.createServer().addService(
      Svc,
      {
        ...handlers(newState()),
        once: (_req: { n: number }, ctx: HandlerContext) =>
          new Promise<{ n: number }>((_, reject) => ctx.signal.addEventListener("abort", reject)),
      },
      { codec: jsonCodec },
    );
    await server.listen();
    const conn = createReconnectingConnection(transport, fast);
    const client = conn.client(Svc, { codec: jsonCodec });
    await client.flaky({ n: 0 });
    let settled = 0;
    const inFlight = client.once({ n: 1 }).finally(() => settled++);
    await new Promise((r) => setTimeout(r, 20));
    await server.close({ graceMs: 0 });
    await rejectsWith(inFlight, Code.Unavailable);
    assert.equal(settled, 1);
    await conn.close();
  });

  it("waitForReady false fails fast in transient failure; true waits for the server", async () => {
    const transport = createMemoryTransport();
    const conn = createReconnectingConnection(transport, fast);
    const client = conn.client(Svc, { codec: jsonCodec });
    await rejectsWith(client.once({ n: 1 }), Code.Unavailable, "nothing-listens");
    assert.equal(conn.state, "transient-failure");
    await rejectsWith(client.once({ n: 1 }), Code.Unavailable);
    const waiting = client.once({ n: 4 }, { waitForReady: true, timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 30));
    const server = await serve(transport);
    assert.deepEqual(await waiting, { n: 5 });
    await conn.close();
    await server.close();
  });

  it("a waitForReady call ends at its deadline and on its signal", async () => {
    const conn = createReconnectingConnection(createMemoryTransport(), fast);
    const client = conn.client(Svc, { codec: jsonCodec });
    await rejectsWith(
      client.once({ n: 1 }, { waitForReady: true, timeoutMs: 50 }),
      Code.DeadlineExceeded,
    );
    const ac = new AbortController();
    const call = client.once({ n: 1 }, { waitForReady: true, signal: ac.signal });
    ac.abort();
    await rejectsWith(call, Code.Canceled);
    await conn.close();
  });

  it("gives up after maxConnectAttempts: calls fail UNAVAILABLE reconnect-exhausted", async () => {
    const conn = createReconnectingConnection(createMemoryTransport(), {
      ...fast,
      maxConnectAttempts: 3,
    });
    const client = conn.client(Svc, { codec: jsonCodec });
    await rejectsWith(
      client.once({ n: 1 }, { waitForReady: true }),
      Code.Unavailable,
      "reconnect-exhausted",
    );
    const closed = await conn.closed;
    assert.ok(closed instanceof NearwireError);
    assert.equal(closed.reason, "reconnect-exhausted");
    assert.equal(conn.state, "shutdown");
    await rejectsWith(client.once({ n: 1 }), Code.Unavailable, "reconnect-exhausted");
  });

  it("retries a method with a policy, sending grpc-previous-rpc-attempts", async () => {
    const transport = createMemoryTransport();
    const state = newState(2);
    const server = await serve(transport, state);
    const conn = createReconnectingConnection(transport, {
      retry: { "/t.Retry/flaky": { maxAttempts: 3, initialBackoffMs: 5 } },
    });
    const client = conn.client(Svc, { codec: jsonCodec });
    assert.deepEqual(await client.flaky({ n: 1 }), { n: 2 });
    assert.deepEqual(state.attempts, ["", "1", "2"]);
    state.failures = 1;
    state.calls = 0;
    await rejectsWith(client.once({ n: 1 }), Code.Unavailable);
    assert.equal(state.calls, 1, "a method without a policy runs once");
    state.failures = 5;
    state.calls = 0;
    await rejectsWith(client.flaky({ n: 1 }), Code.Unavailable);
    assert.equal(state.calls, 3, "maxAttempts bounds the attempts");
    await conn.close();
    await server.close();
  });

  it("the service's interceptors see a retried call once; every attempt carries their metadata", async () => {
    const transport = createMemoryTransport();
    const state = newState(2);
    const server = await serve(transport, state);
    const conn = createReconnectingConnection(transport, {
      retry: { "/t.Retry/flaky": { maxAttempts: 3, initialBackoffMs: 5 } },
    });
    let seen = 0;
    const tag: Interceptor = (next) => async (req) => {
      seen++;
      req.metadata["x-tag"] = "t";
      return next(req);
    };
    const client = conn.client(Svc, { codec: jsonCodec, interceptors: [tag] });
    assert.deepEqual(await client.flaky({ n: 1 }), { n: 2 });
    assert.equal(seen, 1);
    assert.deepEqual(state.tags, ["t", "t", "t"]);
    await conn.close();
    await server.close();
  });

  it("retries streams before the first response; request streams only from arrays", async () => {
    const transport = createMemoryTransport();
    const state = newState();
    const server = await serve(transport, state);
    const conn = createReconnectingConnection(transport, {
      retry: { "t.Retry": { maxAttempts: 2, initialBackoffMs: 5 } },
    });
    const client = conn.client(Svc, { codec: jsonCodec });
    state.failures = 1;
    const got: number[] = [];
    for await (const m of client.stream({ n: 3 })) got.push(m.n);
    assert.deepEqual(got, [0, 1, 2]);
    state.failures = 1;
    assert.deepEqual(await client.sum([{ n: 1 }, { n: 2 }]), { n: 3 });
    state.failures = 1;
    state.calls = 0;
    async function* once() {
      yield { n: 1 };
    }
    await rejectsWith(client.sum(once()), Code.Unavailable);
    assert.equal(state.calls, 1, "an iterator input is not replayed");
    state.failures = 1;
    const echoed: number[] = [];
    for await (const m of client.bidi([{ n: 7 }])) echoed.push(m.n);
    assert.deepEqual(echoed, [7]);
    await conn.close();
    await server.close();
  });
});

describe("retry limits", () => {
  it("a stream that delivered a message is committed: its failure is not retried", async () => {
    const transport = createMemoryTransport();
    const state = newState();
    const server = await serve(transport, state);
    const conn = createReconnectingConnection(transport, {
      retry: { "t.Retry": { maxAttempts: 3, initialBackoffMs: 5 } },
    });
    const client = conn.client(Svc, { codec: jsonCodec });
    const got: number[] = [];
    await rejectsWith(
      (async () => {
        for await (const m of client.stream({ n: -1 })) got.push(m.n);
      })(),
      Code.Unavailable,
    );
    assert.deepEqual(got, [0]);
    assert.equal(state.calls, 1);
    await conn.close();
    await server.close();
  });

  it("the deadline bounds the call across attempts and retry delays", async () => {
    const transport = createMemoryTransport();
    const state = newState(100);
    const server = await serve(transport, state);
    const conn = createReconnectingConnection(transport, {
      retry: { "t.Retry": { maxAttempts: 5, initialBackoffMs: 60_000, maxBackoffMs: 60_000 } },
    });
    const client = conn.client(Svc, { codec: jsonCodec });
    const started = Date.now();
    await rejectsWith(client.flaky({ n: 1 }, { timeoutMs: 100 }), Code.DeadlineExceeded);
    // A hang guard, not a timing claim: the 60 s retry delay was cut by the deadline.
    assert.ok(Date.now() - started < 30_000);
    assert.ok(state.calls >= 1 && state.calls <= 2, `${state.calls} attempts`);
    await conn.close();
    await server.close();
  });
});

describe("backoff", () => {
  it("connection backoff grows by the multiplier to the max, within ± jitter", () => {
    const mid = new ConnectionBackoff({ initialMs: 100, multiplier: 2, maxMs: 500 }, () => 0.5);
    assert.deepEqual(
      [mid.next(), mid.next(), mid.next(), mid.next(), mid.next()],
      [100, 200, 400, 500, 500],
    );
    mid.reset();
    assert.equal(mid.next(), 100);
    const low = new ConnectionBackoff({ initialMs: 100, jitter: 0.2 }, () => 0);
    assert.equal(low.next(), 80);
    const high = new ConnectionBackoff({ initialMs: 100, jitter: 0.2 }, () => 0.999999);
    assert.ok(high.next() < 120);
  });

  it("retry delay is below min(initial × multiplier^(n-1), max)", () => {
    const p = { initialBackoffMs: 100, maxBackoffMs: 300, backoffMultiplier: 2 };
    assert.equal(
      retryDelayMs(p, 1, () => 0.5),
      50,
    );
    assert.equal(
      retryDelayMs(p, 2, () => 0.5),
      100,
    );
    assert.equal(
      retryDelayMs(p, 3, () => 0.5),
      150,
    );
  });
});

/** A transport whose connections are fakes: `dropAtOnce` ones report loss right away. */
function fakeTransport(opts: { dropAtOnce?: boolean; connectDelayMs?: number }) {
  const made: { closedByUs: boolean }[] = [];
  const transport: Transport = {
    name: "fake",
    createServer: () => {
      throw new Error("no server");
    },
    async connect() {
      await new Promise((r) => setTimeout(r, opts.connectDelayMs ?? 0));
      const record = { closedByUs: false };
      made.push(record);
      let close: (err: Error | undefined) => void = () => {};
      const closed = new Promise<Error | undefined>((resolve) => {
        close = resolve;
      });
      if (opts.dropAtOnce === true) setImmediate(() => close(new Error("dropped")));
      const conn = {
        client: () => {
          throw new Error("not used");
        },
        close: async () => {
          record.closedByUs = true;
          close(undefined);
        },
        [Symbol.asyncDispose]: () => conn.close(),
        closed,
      };
      return conn;
    },
  };
  return { transport, made };
}

describe("createReconnectingConnection with a misbehaving transport", () => {
  it("backs off from a server that accepts and drops every connection", async () => {
    const { transport, made } = fakeTransport({ dropAtOnce: true });
    const conn = createReconnectingConnection(transport, {
      backoff: { initialMs: 40, multiplier: 2, jitter: 0, maxMs: 1000 },
    });
    const client = conn.client(Svc, { codec: jsonCodec });
    try {
      // The first call connects; on the fake connection it fails, which is not the point here.
      await client.once({ n: 1 }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      await conn.close();
    }
    // 40 + 80 + 160 ms of backoff fit in 300 ms: a handful of connections, not hundreds.
    assert.ok(made.length >= 2 && made.length <= 5, `${made.length} connections`);
  });

  it("close() during a connection attempt closes what the attempt brings", async () => {
    const { transport, made } = fakeTransport({ connectDelayMs: 50 });
    const conn = createReconnectingConnection(transport);
    const client = conn.client(Svc, { codec: jsonCodec });
    const call = client.once({ n: 1 }, { waitForReady: true });
    const outcome = rejectsWith(call, Code.Canceled, "closed");
    await new Promise((r) => setTimeout(r, 10));
    await conn.close();
    await outcome;
    assert.equal(made.length, 1);
    const first = made[0];
    assert.ok(first);
    assert.equal(first.closedByUs, true);
    assert.equal(await conn.closed, undefined);
  });
});
