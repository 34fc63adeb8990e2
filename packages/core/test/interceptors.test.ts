import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  authInterceptor,
  bearerToken,
  type Client,
  Code,
  createMemoryTransport,
  deadlinePropagation,
  defineService,
  type HandlerErrorHook,
  type Interceptor,
  jsonCodec,
  loggingInterceptor,
  messageType,
  NearwireError,
  type RpcOptions,
  type ServiceImpl,
  serverStreaming,
  unary,
  withoutDeadlinePropagation,
} from "../src/index.js";

interface Num {
  n: number;
}
const NumT = messageType<Num>("test.Num");
/** What a backend handler saw of its call. */
interface Seen {
  deadlineIn: number;
  aborted: boolean;
}
const SeenT = messageType<Seen>("test.Seen");
const Back = defineService("test.Back", {
  /** Waits up to `n` ms for its signal; reports its deadline and whether it was aborted. */
  wait: unary(NumT, SeenT),
});
const Front = defineService("test.Front", {
  echo: unary(NumT, NumT),
  relay: unary(NumT, SeenT),
  relayDetached: unary(NumT, SeenT),
  count: serverStreaming(NumT, NumT),
  boom: unary(NumT, NumT),
  boomStream: serverStreaming(NumT, NumT),
});

const waitHandler = (req: Num, ctx: { deadline: number | undefined; signal: AbortSignal }) =>
  new Promise<Seen>((resolve) => {
    const deadlineIn = ctx.deadline === undefined ? -1 : ctx.deadline - Date.now();
    const t = setTimeout(() => resolve({ deadlineIn, aborted: false }), req.n);
    ctx.signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve({ deadlineIn, aborted: true });
    });
  });

/** A server of Front and Back on one memory transport; Front's handlers call Back. */
async function started(
  interceptors: { front?: Interceptor[]; back?: Interceptor[]; client?: Interceptor[] },
  options: RpcOptions = {},
) {
  const transport = createMemoryTransport(options);
  const server = transport.createServer();
  // The front handlers' client of Back, connected once the server listens.
  let back: Client<typeof Back> | undefined;
  const backClient = () => back as Client<typeof Back>;
  const backSeen: Seen[] = [];
  const backStarted: number[] = [];
  const front: ServiceImpl<typeof Front> = {
    echo: (r) => r,
    relay: (r) => backClient().wait(r),
    relayDetached: (r) => withoutDeadlinePropagation(() => backClient().wait(r)),
    async *count(r) {
      for (let i = 0; i < r.n; i++) yield { n: i };
    },
    boom: () => {
      throw new RangeError("index 7 out of range");
    },
    async *boomStream() {
      yield { n: 1 };
      throw new TypeError("bad state");
    },
  };
  server.addService(Front, front, { codec: jsonCodec, interceptors: interceptors.front ?? [] });
  server.addService(
    Back,
    {
      wait: async (r, ctx) => {
        backStarted.push(r.n);
        const seen = await waitHandler(r, ctx);
        backSeen.push(seen);
        return seen;
      },
    },
    { codec: jsonCodec, interceptors: interceptors.back ?? [] },
  );
  await server.listen();
  const inner = await transport.connect();
  back = inner.client(Back, { codec: jsonCodec, interceptors: interceptors.front ?? [] });
  const conn = await transport.connect();
  const client = conn.client(Front, { codec: jsonCodec, interceptors: interceptors.client ?? [] });
  return {
    client,
    backSeen,
    backStarted,
    async close() {
      await conn.close();
      await inner.close();
      await server.close({ graceMs: 0 });
    },
  };
}

describe("loggingInterceptor", () => {
  it("logs one line per call on each side, with code, time and peer; streams when they end", async () => {
    const lines: string[] = [];
    const logging = loggingInterceptor({ log: (line) => lines.push(line) });
    const s = await started({ front: [logging], client: [logging] });
    try {
      await s.client.echo({ n: 1 });
      assert.equal((await collect(s.client.count({ n: 3 }))).length, 3);
      await assert.rejects(s.client.boom({ n: 0 }), { code: Code.Unknown });
    } finally {
      await s.close();
    }
    const shapes = lines.map((l) =>
      l.replace(/ \d+\.\d ms/, " T ms").replace(/ peer=\S+/, " PEER"),
    );
    assert.deepEqual(shapes.sort(), [
      "client /test.Front/boom UNKNOWN T ms — index 7 out of range",
      "client /test.Front/count OK T ms",
      "client /test.Front/echo OK T ms",
      "server /test.Front/boom UNKNOWN T ms PEER — index 7 out of range",
      "server /test.Front/count OK T ms PEER",
      "server /test.Front/echo OK T ms PEER",
    ]);
  });
});

describe("authInterceptor and bearerToken", () => {
  const auth = authInterceptor((req) => {
    const token = req.metadata.authorization;
    if (token === undefined) throw new NearwireError(Code.Unauthenticated, "no token");
    return token === "Bearer good" && req.method !== "boom";
  });

  it("lets an authorized call run, refuses the rest before the handler", async () => {
    const s = await started({ front: [auth], client: [bearerToken(() => "good")] });
    try {
      assert.deepEqual(await s.client.echo({ n: 4 }), { n: 4 });
      // boom's handler would throw UNKNOWN: PERMISSION_DENIED shows it never ran.
      await assert.rejects(s.client.boom({ n: 0 }), {
        code: Code.PermissionDenied,
        message: "not allowed to call /test.Front/boom",
      });
    } finally {
      await s.close();
    }
  });

  it("UNAUTHENTICATED without a token, PERMISSION_DENIED with a wrong one; the connection stays", async () => {
    for (const [interceptors, code] of [
      [[], Code.Unauthenticated],
      [[bearerToken("bad")], Code.PermissionDenied],
    ] as const) {
      const s = await started({ front: [auth], client: [...interceptors] });
      try {
        await assert.rejects(s.client.echo({ n: 1 }), { code });
        await assert.rejects(collect(s.client.count({ n: 2 })), { code });
        await assert.rejects(s.client.echo({ n: 2 }), { code });
      } finally {
        await s.close();
      }
    }
  });
});

describe("deadlinePropagation", () => {
  const propagate = deadlinePropagation();

  it("a handler's outgoing call gets its remaining deadline", async () => {
    const s = await started({ front: [propagate] });
    try {
      const seen = await s.client.relay({ n: 0 }, { timeoutMs: 5000 });
      assert.ok(seen.deadlineIn > 0 && seen.deadlineIn <= 5000, `deadlineIn ${seen.deadlineIn}`);
      // Without a deadline on the front call, none on the back one.
      assert.equal((await s.client.relay({ n: 0 })).deadlineIn, -1);
    } finally {
      await s.close();
    }
  });

  it("a handler's outgoing call is cancelled when the handler's call is", async () => {
    const s = await started({ front: [propagate] });
    try {
      const ac = new AbortController();
      const call = s.client.relay({ n: 5000 }, { signal: ac.signal });
      await waitUntil(() => s.backStarted.length === 1);
      ac.abort();
      await assert.rejects(call, { code: Code.Canceled });
      await waitUntil(() => s.backSeen.length === 1);
      assert.equal(s.backSeen[0]?.aborted, true);
    } finally {
      await s.close();
    }
  });

  it("the shorter deadline wins, and withoutDeadlinePropagation inherits nothing", async () => {
    const s = await started({ front: [propagate] });
    try {
      // The back call outlives a 50 ms front deadline: the front call fails, the back one is
      // cut at the same deadline.
      await assert.rejects(s.client.relay({ n: 2000 }, { timeoutMs: 50 }), {
        code: Code.DeadlineExceeded,
      });
      const detached = await s.client.relayDetached({ n: 0 }, { timeoutMs: 5000 });
      assert.equal(detached.deadlineIn, -1);
    } finally {
      await s.close();
    }
  });
});

describe("onHandlerError", () => {
  it("by default logs a non-NearwireError once with method and peer; the client gets UNKNOWN", async () => {
    const logged: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => logged.push(args);
    const s = await started({});
    try {
      await assert.rejects(s.client.boom({ n: 0 }), {
        code: Code.Unknown,
        message: "index 7 out of range",
      });
      await assert.rejects(collect(s.client.boomStream({ n: 0 })), {
        code: Code.Unknown,
        message: "bad state",
      });
    } finally {
      console.error = original;
      await s.close();
    }
    assert.equal(logged.length, 2);
    assert.match(
      String(logged[0]?.[0]),
      /handler of \/test\.Front\/boom \(peer memory:\S*\) threw/,
    );
    assert.ok(logged[0]?.[1] instanceof RangeError);
    assert.ok(logged[1]?.[1] instanceof TypeError);
  });

  it("a hook chooses what the client gets; a NearwireError is never reported", async () => {
    const seen: string[] = [];
    const hook: HandlerErrorHook = (error, call) => {
      seen.push(`${call.method} ${(error as Error).name}`);
      if (error instanceof TypeError) throw new Error("the hook itself fails");
      return new NearwireError(Code.Internal, "internal error (see the server log)");
    };
    const original = console.error;
    const logged: unknown[][] = [];
    console.error = (...args: unknown[]) => logged.push(args);
    const s = await started({}, { onHandlerError: hook });
    try {
      await assert.rejects(s.client.boom({ n: 0 }), {
        code: Code.Internal,
        message: "internal error (see the server log)",
      });
      // The hook throws: reported on the console, and the default is sent.
      await assert.rejects(collect(s.client.boomStream({ n: 0 })), {
        code: Code.Unknown,
        message: "bad state",
      });
      await assert.rejects(s.client.relay({ n: 0 }, { timeoutMs: -1 }), {
        code: Code.DeadlineExceeded,
      });
    } finally {
      console.error = original;
      await s.close();
    }
    assert.deepEqual(seen, ["/test.Front/boom RangeError", "/test.Front/boomStream TypeError"]);
    assert.equal(logged.length, 1);
    assert.match(String(logged[0]?.[0]), /onHandlerError threw for \/test\.Front\/boomStream/);
  });
});

async function waitUntil(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}
