import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inspect } from "node:util";
import {
  type Channel,
  Code,
  connectRpc,
  defineService,
  jsonCodec,
  messageType,
  NearwireError,
  serverStreaming,
  unary,
} from "../src/index.js";
import { FrameType } from "../src/protocol.js";
import { bindService } from "../src/rpc/bound-method.js";
import { ClientSession } from "../src/rpc/client-session.js";
import {
  decodeCancel,
  decodeRequest,
  decodeStatus,
  encodeCallId,
  encodeCancel,
  encodeCredit,
  encodeRequest,
  encodeStatus,
  FLAG_END_STREAM,
  FLAG_HAS_MESSAGE,
  putU32,
  readU32,
} from "../src/rpc/envelope.js";
import { RpcServer } from "../src/rpc/rpc-server.js";
import { channelPair, pairProvider } from "./support/channel-pair.js";

interface Num {
  n: number;
}
const NumT = messageType<Num>("test.Num");
const Svc = defineService("test.Svc", {
  echo: unary(NumT, NumT),
  count: serverStreaming(NumT, NumT),
  sleep: unary(NumT, NumT),
});
const json = jsonCodec.forType(NumT);
const utf8 = new TextEncoder();

type Sent = Array<[number, Uint8Array]>;
const sentOf = (ch: Channel): Sent => (ch as unknown as { sent: Sent }).sent;
const tick = () => new Promise((r) => setTimeout(r, 5));

/** A real client on one end of a pair; the test plays the server with raw frames. */
function rawServer() {
  const [serverEnd, clientEnd] = channelPair();
  const frames: Sent = [];
  let closedWith: NearwireError | undefined | null = null;
  serverEnd.start({
    onFrame: (t, p) => frames.push([t, p]),
    onClose: (e) => {
      closedWith = e;
    },
  });
  const conn = connectRpc(clientEnd);
  const client = conn.client(Svc, { codec: jsonCodec });
  return {
    client,
    frames,
    closed: () => closedWith,
    send: (t: number, p: Uint8Array) => serverEnd.send(t, p),
    message: (id: number, n: number) => {
      const m = json.encode({ n });
      const p = new Uint8Array(4 + m.byteLength);
      putU32(p, 0, id);
      p.set(m, 4);
      serverEnd.send(FrameType.Message, p);
    },
    ok: (id: number) =>
      serverEnd.send(FrameType.Status, encodeStatus(id, Code.OK, "", undefined, undefined)),
  };
}

/** A real server on one end of a pair; the test plays the client with raw frames. */
async function rawClient() {
  const [serverEnd, clientEnd] = channelPair();
  const { provider, accept } = pairProvider(serverEnd, clientEnd);

  const server = new RpcServer(provider).addService(
    Svc,
    {
      echo: (r) => ({ n: r.n + 1 }),
      async *count(r) {
        for (let i = 0; i < r.n; i++) yield { n: i };
      },
      sleep: (r, ctx) =>
        new Promise<Num>((resolve, reject) => {
          const t = setTimeout(() => resolve(r), r.n);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(t);
            reject(ctx.signal.reason);
          });
        }),
    },
    { codec: jsonCodec },
  );
  await server.listen();
  accept();
  const frames: Sent = [];
  let closedWith: NearwireError | undefined | null = null;
  clientEnd.start({
    onFrame: (t, p) => frames.push([t, p]),
    onClose: (e) => {
      closedWith = e;
    },
  });
  const request = (id: number, method: string, n: number) =>
    clientEnd.send(
      FrameType.Request,
      encodeRequest(
        id,
        FLAG_END_STREAM | FLAG_HAS_MESSAGE,
        0,
        utf8.encode(`/test.Svc/${method}`),
        undefined,
        json.encode({ n }),
      ),
    );
  return {
    frames,
    serverEnd,
    closed: () => closedWith,
    request,
    send: (t: number, p: Uint8Array) => clientEnd.send(t, p),
    goaway: () => sentOf(serverEnd).find(([t]) => t === FrameType.GoAway),
  };
}

describe("call ids are never reused on a connection (PROTOCOL.md §5.1): the client", () => {
  it("the client counts ids up and never picks a cancelled call's id again", async () => {
    const s = rawServer();
    const ac = new AbortController();
    const first = s.client.sleep({ n: 1 }, { signal: ac.signal });
    await tick();
    ac.abort();
    await assert.rejects(first, { code: Code.Canceled });
    const second = s.client.echo({ n: 2 });
    await tick();
    const ids = s.frames.filter(([t]) => t === FrameType.Request).map(([, p]) => readU32(p, 0));
    assert.deepEqual(ids, [1, 2]);
    // Late frames of the cancelled call 1 arrive after call 2 started: ignored, not taken for 2.
    for (let i = 0; i < 32; i++) s.message(1, 1000 + i);
    s.ok(1);
    s.message(2, 3);
    s.ok(2);
    assert.deepEqual(await second, { n: 3 });
    assert.equal(s.closed(), null, "late frames of an ended call do not close the connection");
  });

  it("a late stream of a cancelled server stream does not reach a newer call", async () => {
    const s = rawServer();
    const it1 = s.client.count({ n: 100 })[Symbol.asyncIterator]();
    await tick();
    s.message(1, 0);
    assert.deepEqual((await it1.next()).value, { n: 0 });
    await it1.return?.();
    const it2 = s.client.count({ n: 2 })[Symbol.asyncIterator]();
    await tick();
    for (let i = 1; i <= 16; i++) s.message(1, i);
    s.message(2, 70);
    s.ok(2);
    assert.deepEqual((await it2.next()).value, { n: 70 });
    assert.equal((await it2.next()).done, true);
  });

  it("after id 2^32 − 1 the connection starts no more calls: UNAVAILABLE call-ids-exhausted", async () => {
    const [serverEnd, clientEnd] = channelPair();
    serverEnd.start({ onFrame: () => {}, onClose: () => {} });
    const session = new ClientSession(clientEnd, 1 << 20);
    const echo = bindService(Svc, jsonCodec).find((b) => b.name === "echo");
    assert.ok(echo);
    const client = { echo: (r: Num) => session.unary(echo, r, undefined) };
    // Skip four billion calls: the counter is the session's private state.
    (session as unknown as { nextId: number }).nextId = 0xffffffff;
    void client.echo({ n: 1 });
    await tick();
    const [, p] = sentOf(clientEnd).find(([t]) => t === FrameType.Request) ?? [];
    assert.equal(p && readU32(p, 0), 0xffffffff);
    await assert.rejects(client.echo({ n: 1 }), (e: NearwireError) => {
      assert.equal(e.code, Code.Unavailable);
      assert.equal(e.reason, "call-ids-exhausted");
      assert.match(e.message, /open a new connection/);
      return true;
    });
  });

  it("a MESSAGE for an id the client never started is a violation; calls fail with it", async () => {
    const s = rawServer();
    const pending = s.client.sleep({ n: 1 });
    await tick();
    s.message(9, 1);
    await assert.rejects(pending, (e: NearwireError) => {
      assert.equal(e.code, Code.Internal);
      assert.equal(e.reason, "protocol-violation");
      assert.match(e.message, /call id 9, which this client never started/);
      return true;
    });
    await tick();
    const after = s.client.echo({ n: 1 });
    await assert.rejects(after, { code: Code.Internal, reason: "protocol-violation" });
  });

  it("a violation the client detects fails its calls with that reason, not peer-closed", async () => {
    const s = rawServer();
    const pending = s.client.sleep({ n: 1 });
    await tick();
    s.send(0x18, new Uint8Array(4));
    await assert.rejects(pending, (e: NearwireError) => {
      assert.equal(e.code, Code.Internal);
      assert.equal(e.reason, "unknown-frame-type");
      assert.match(e.message, /unexpected frame type 0x18/);
      return true;
    });
  });
});

describe("call ids are never reused on a connection (PROTOCOL.md §5.1): the server", () => {
  it("the server rejects a REQUEST that reuses an id (after CANCEL too) with GOAWAY INTERNAL", async () => {
    const c = await rawClient();
    c.request(1, "sleep", 5000);
    await tick();
    c.send(FrameType.Cancel, encodeCancel(1, Code.Canceled));
    c.request(2, "echo", 1);
    await tick();
    assert.equal(c.closed(), null);
    c.request(2, "echo", 1);
    await tick();
    const closed = c.closed();
    assert.ok(closed instanceof NearwireError, "the connection closed");
    const [, p] = sentOf(c.serverEnd).findLast(([t]) => t === FrameType.Status) ?? [];
    assert.ok(p !== undefined && readU32(p, 0) === 2, "call 2 was answered");
  });

  it("the server rejects call id 0 and ids below the last one", async () => {
    for (const ids of [[0], [5, 3]]) {
      const c = await rawClient();
      const closes: unknown[] = [];
      (c.serverEnd as unknown as { close: (e?: NearwireError) => Promise<void> }).close = (
        (orig) => (e?: NearwireError) => {
          closes.push(e);
          return orig(e);
        }
      )(c.serverEnd.close.bind(c.serverEnd));
      for (const id of ids) c.request(id, "echo", 1);
      await tick();
      const e = closes[0] as NearwireError;
      assert.ok(e instanceof NearwireError, `ids ${ids}: closed with an error`);
      assert.equal(e.code, Code.Internal);
      assert.equal(e.reason, "protocol-violation");
      assert.match(e.message, /is not above the last one/);
    }
  });

  it("the server ignores frames for ended calls and rejects frames for ids never started", async () => {
    const c = await rawClient();
    const closes: NearwireError[] = [];
    const orig = c.serverEnd.close.bind(c.serverEnd);
    c.serverEnd.close = (e?: NearwireError) => {
      if (e) closes.push(e);
      return orig(e);
    };
    c.request(1, "echo", 1);
    await tick();
    c.send(FrameType.Message, new Uint8Array([0, 0, 0, 1, 0x7b, 0x7d]));
    c.send(FrameType.End, encodeCallId(1));
    c.send(FrameType.Cancel, encodeCancel(1, Code.Canceled));
    c.send(FrameType.Credit, encodeCredit(1, 5));
    await tick();
    assert.equal(closes.length, 0);
    c.send(FrameType.End, encodeCallId(2));
    await tick();
    assert.equal(closes[0]?.reason, "protocol-violation");
    assert.match(closes[0]?.message ?? "", /END for call id 2, which no REQUEST started/);
  });

  it("CANCEL with a code other than 1 or 4 cancels the call; 0 and > 16 read as CANCELLED", async () => {
    for (const code of [0, 2, 13, 17, 255]) {
      const c = await rawClient();
      c.request(1, "sleep", 5000);
      await tick();
      const p = encodeCancel(1, Code.Canceled);
      p[4] = code;
      c.send(FrameType.Cancel, p);
      c.request(2, "echo", 1);
      await tick();
      assert.equal(c.closed(), null, `CANCEL code ${code} keeps the connection`);
      const statuses = c.frames.filter(([t]) => t === FrameType.Status);
      assert.deepEqual(
        statuses.map(([, s]) => readU32(s, 0)),
        [2],
        "nothing is sent for the cancelled call",
      );
      assert.deepEqual(decodeCancel(p).code, code >= 1 && code <= 16 ? code : 1);
    }
  });
});

describe("timeoutMs", () => {
  it("0 and negative fail at once with DEADLINE_EXCEEDED and send nothing; NaN is INVALID_ARGUMENT", async () => {
    const s = rawServer();
    for (const t of [0, -1, -0.5, Number.NEGATIVE_INFINITY]) {
      await assert.rejects(s.client.echo({ n: 1 }, { timeoutMs: t }), (e: NearwireError) => {
        assert.equal(e.code, Code.DeadlineExceeded);
        assert.match(e.message, /deadline has already passed/);
        return true;
      });
      const it = s.client.count({ n: 1 }, { timeoutMs: t })[Symbol.asyncIterator]();
      await assert.rejects(it.next(), { code: Code.DeadlineExceeded });
    }
    await assert.rejects(s.client.echo({ n: 1 }, { timeoutMs: Number.NaN }), {
      code: Code.InvalidArgument,
    });
    await tick();
    assert.equal(s.frames.length, 0, "no REQUEST was sent");
  });
});

describe("NearwireError", () => {
  it("inspect() shows the code's name", () => {
    const e = new NearwireError(Code.DeadlineExceeded, "deadline of 5 ms exceeded", {
      reason: "frame-timeout",
    });
    const text = inspect(e);
    assert.match(text, /^NearwireError \[DEADLINE_EXCEEDED\]: deadline of 5 ms exceeded\n/);
    assert.match(text, /code: 4 \(DEADLINE_EXCEEDED\)/);
    assert.match(text, /reason: 'frame-timeout'/);
    assert.match(inspect({ wrapped: e }), /DEADLINE_EXCEEDED/);
  });
});

describe("the nearwire-reason trailer (PROTOCOL.md §5.6)", () => {
  it("becomes the error's reason and leaves the other trailers as metadata", async () => {
    const s = rawServer();
    const p = s.client.echo({ n: 1 });
    await tick();
    s.send(
      FrameType.Status,
      encodeStatus(
        1,
        Code.InvalidArgument,
        "request decode failed: x",
        { "nearwire-reason": "decode-failed", other: "v" },
        undefined,
      ),
    );
    await assert.rejects(p, (e: NearwireError) => {
      assert.equal(e.code, Code.InvalidArgument);
      assert.equal(e.reason, "decode-failed");
      assert.deepEqual(e.metadata, { other: "v" });
      return true;
    });
  });

  it("the server sends it for a request it cannot decode", async () => {
    const c = await rawClient();
    c.send(
      FrameType.Request,
      encodeRequest(
        1,
        FLAG_END_STREAM | FLAG_HAS_MESSAGE,
        0,
        utf8.encode("/test.Svc/echo"),
        undefined,
        utf8.encode("{not json"),
      ),
    );
    await tick();
    const [, p] = c.frames.find(([t]) => t === FrameType.Status) ?? [];
    assert.ok(p);
    const st = decodeStatus(p);
    assert.equal(st.code, Code.InvalidArgument);
    assert.deepEqual(st.trailers, { "nearwire-codec": "json", "nearwire-reason": "decode-failed" });
  });
});

describe("receiver rules at a client (PROTOCOL.md §5.10)", () => {
  it("a STATUS with code ≠ 0 and a message: the call fails, the message is ignored, the connection stays", async () => {
    const s = rawServer();
    const p = s.client.echo({ n: 1 });
    await tick();
    s.send(
      FrameType.Status,
      encodeStatus(1, Code.NotFound, "no such n", undefined, json.encode({ n: 9 })),
    );
    await assert.rejects(p, { code: Code.NotFound, message: "no such n" });
    const q = s.client.echo({ n: 2 });
    await tick();
    s.message(2, 3);
    s.ok(2);
    assert.deepEqual(await q, { n: 3 });
    assert.equal(s.closed(), null);
  });

  it("metadata: keys go lower-case; a key twice in one block keeps the last value", async () => {
    const s = rawServer();
    const pending = s.client.echo({ n: 1 }, { metadata: { "X-Mixed": "a" } });
    await tick();
    const [, p] = s.frames.find(([t]) => t === FrameType.Request) ?? [];
    assert.ok(p);
    assert.deepEqual(decodeRequest(p).metadata, { "x-mixed": "a" });
    // A block with "k" twice (hand-built: encoders never write one), on the STATUS of call 1.
    const twice = encodeStatus(1, Code.NotFound, "", { k: "first", l: "x" }, undefined);
    twice[twice.lastIndexOf(0x6c, twice.length - 6)] = 0x6b; // the key "l" becomes "k"
    s.send(FrameType.Status, twice);
    await assert.rejects(pending, (e: NearwireError) => {
      assert.deepEqual(e.metadata, { k: "x" });
      return true;
    });
  });
});
