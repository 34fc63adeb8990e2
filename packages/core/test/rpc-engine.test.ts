import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  bidiStreaming,
  type ChannelProvider,
  Code,
  type Codec,
  clientStreaming,
  connectRpc,
  createCodec,
  defineService,
  FrameType,
  jsonCodec,
  type MessageCodec,
  messageType,
  NearwireError,
  serverStreaming,
  unary,
} from "../src/index.js";
import { RpcServer } from "../src/rpc/rpc-server.js";
import { channelPair } from "./support/channel-pair.js";

interface Num {
  n: number;
}
const NumT = messageType<Num>("test.Num");
const Svc = defineService("test.Svc", {
  echo: unary(NumT, NumT),
  count: serverStreaming(NumT, NumT),
  sum: clientStreaming(NumT, NumT),
  bidi: bidiStreaming(NumT, NumT),
  sleep: unary(NumT, NumT),
});

function setup(pair: { sendWith?: boolean } = {}, codec: Codec = jsonCodec) {
  const [serverEnd, clientEnd] = channelPair(pair);
  let accepted: ((ch: typeof serverEnd) => void) | undefined;
  const provider: ChannelProvider = {
    name: "pair",
    async listen(onChannel) {
      accepted = onChannel;
      return { address: "pair", close: async () => {} };
    },
    async connect() {
      return clientEnd;
    },
  };
  const seen = { aborted: 0, produced: 0 };
  const server = new RpcServer(provider).addService(
    Svc,
    {
      echo: (req) => {
        if (req.n < 0)
          throw new NearwireError(-req.n as Code, "as asked", { metadata: { why: "negative" } });
        return { n: req.n + 1 };
      },
      async *count(req) {
        for (let i = 0; i < req.n; i++) {
          seen.produced = i + 1;
          yield { n: i };
        }
      },
      async sum(reqs) {
        let s = 0;
        for await (const r of reqs) s += r.n;
        return { n: s };
      },
      async *bidi(reqs) {
        for await (const r of reqs) yield { n: r.n * 2 };
      },
      sleep: (req, ctx) =>
        new Promise<Num>((resolve) => {
          const t = setTimeout(() => resolve(req), req.n);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(t);
            seen.aborted++;
          });
        }),
    },
    { codec },
  );
  return {
    seen,
    serverEnd,
    clientEnd,
    async start() {
      await server.listen();
      accepted?.(serverEnd);
      const conn = connectRpc(clientEnd);
      return Object.assign(conn.client(Svc, { codec }), { conn });
    },
  };
}

/** JSON with `encodeInto`, so the engine can encode in place when the channel offers `sendWith`. */
const jsonInto = createCodec("json-into", {
  "test.Num": {
    ...jsonCodec.forType(NumT),
    encodeInto(value: unknown, dest: Uint8Array, offset: number): number {
      const bytes = jsonCodec.forType(NumT).encode(value as Num);
      if (offset + bytes.byteLength > dest.byteLength) return -1;
      dest.set(bytes, offset);
      return bytes.byteLength;
    },
  } as MessageCodec<unknown>,
});

describe("rpc engine (in-process channel pair)", () => {
  it("encodes in place through Channel.sendWith when the codec has encodeInto", async () => {
    const s = setup({ sendWith: true }, jsonInto);
    const c = await s.start();
    assert.deepEqual(await c.echo({ n: 41 }), { n: 42 });
    const got: number[] = [];
    for await (const m of c.count({ n: 100 })) got.push(m.n);
    assert.equal(got.length, 100);
    assert.deepEqual(await c.sum(Array.from({ length: 50 }, (_, i) => ({ n: i }))), { n: 1225 });
    const ends = s as unknown as { serverEnd: { inPlace: number }; clientEnd: { inPlace: number } };
    assert.ok(ends.clientEnd.inPlace >= 51, `client encoded ${ends.clientEnd.inPlace} in place`);
    assert.ok(ends.serverEnd.inPlace >= 101, `server encoded ${ends.serverEnd.inPlace} in place`);
    // Metadata takes the copying path, and still works.
    assert.deepEqual(await c.echo({ n: 1 }, { metadata: { a: "b" } }), { n: 2 });
  });

  it("runs all four call kinds", async () => {
    const c = await setup().start();
    assert.deepEqual(await c.echo({ n: 41 }), { n: 42 });
    const got: number[] = [];
    for await (const m of c.count({ n: 100 })) got.push(m.n);
    assert.deepEqual(
      got,
      Array.from({ length: 100 }, (_, i) => i),
    );
    assert.deepEqual(await c.sum(Array.from({ length: 100 }, (_, i) => ({ n: i }))), { n: 4950 });
    const doubled: number[] = [];
    for await (const m of c.bidi([{ n: 1 }, { n: 2 }, { n: 3 }])) doubled.push(m.n);
    assert.deepEqual(doubled, [2, 4, 6]);
  });

  it("multiplexes concurrent calls, each answered with its own value", async () => {
    const c = await setup().start();
    const res = await Promise.all(Array.from({ length: 500 }, (_, i) => c.echo({ n: i })));
    assert.deepEqual(
      res.map((r) => r.n),
      Array.from({ length: 500 }, (_, i) => i + 1),
    );
  });

  it("carries every status code and its trailers", async () => {
    const c = await setup().start();
    for (let code = 1; code <= 16; code++) {
      await assert.rejects(c.echo({ n: -code }), (e: NearwireError) => {
        assert.equal(e.code, code);
        assert.equal(e.metadata.why, "negative");
        return true;
      });
    }
  });

  it("deadline: client gets DEADLINE_EXCEEDED and the server handler is aborted", async () => {
    const s = setup();
    const c = await s.start();
    await assert.rejects(c.sleep({ n: 5000 }, { timeoutMs: 20 }), { code: Code.DeadlineExceeded });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(s.seen.aborted, 1);
  });

  it("cancellation by AbortSignal reaches the server", async () => {
    const s = setup();
    const c = await s.start();
    const ac = new AbortController();
    const p = c.sleep({ n: 5000 }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 10);
    await assert.rejects(p, { code: Code.Canceled });
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(s.seen.aborted, 1);
  });

  it("stream credit: a server stream that nobody reads stops after the window", async () => {
    const s = setup();
    const c = await s.start();
    const it = c.count({ n: 10_000 })[Symbol.asyncIterator]();
    assert.deepEqual((await it.next()).value, { n: 0 });
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(s.seen.produced <= 64, `produced ${s.seen.produced} ahead of a stalled reader`);
    let n = 1;
    for (;;) {
      const r = await it.next();
      if (r.done) break;
      assert.equal(r.value.n, n++);
    }
    assert.equal(n, 10_000);
  });

  it("a malformed REQUEST closes the connection with INTERNAL; pending calls fail UNAVAILABLE", async () => {
    const s = setup();
    const c = await s.start();
    const pending = c.sleep({ n: 5000 });
    s.clientEnd.send(FrameType.Request, new Uint8Array([0, 0, 0, 9, 0]));
    await assert.rejects(pending, { code: Code.Unavailable });
  });

  it("unknown method gets UNIMPLEMENTED and the connection keeps working", async () => {
    const s = setup();
    const c = await s.start();
    const Other = defineService("test.Svc", { missing: unary(NumT, NumT) });
    const other = c.conn.client(Other, { codec: jsonCodec });
    await assert.rejects(other.missing({ n: 1 }), { code: Code.Unimplemented });
    assert.deepEqual(await c.echo({ n: 1 }), { n: 2 });
  });
});
