import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type Channel,
  Code,
  connectRpc,
  defineService,
  jsonCodec,
  messageType,
  NearwireError,
  serverStreaming,
} from "../src/index.js";
import { FrameType } from "../src/protocol.js";
import {
  checkBatch,
  decodeCredit,
  encodeRequest,
  encodeStatus,
  FLAG_END_STREAM,
  FLAG_HAS_MESSAGE,
  putU32,
  readU32,
} from "../src/rpc/envelope.js";
import { BATCH_BYTES } from "../src/rpc/envelope-writer.js";
import { RpcServer } from "../src/rpc/rpc-server.js";
import { channelPair, pairProvider } from "./support/channel-pair.js";

/**
 * BATCH frames (PROTOCOL.md §5.2): what the engine sends to a peer that takes them, and what it
 * does with the ones it receives, good and bad.
 */
interface Item {
  n: number | string;
}
const ItemT = messageType<Item>("test.Item");
const Svc = defineService("test.Batch", {
  /** Yields `items` as given (the request's `n` is a JSON list, see `itemsOf`). */
  list: serverStreaming(ItemT, ItemT),
});
const json = jsonCodec.forType(ItemT);
const utf8 = new TextEncoder();
const tick = () => new Promise((r) => setTimeout(r, 5));

type Frame = [number, Uint8Array];

/** The items a `list` request asks for: `n` is a JSON list of item values. */
function itemsOf(r: Item): Item[] {
  return (JSON.parse(String(r.n)) as (number | string)[]).map((n) => ({ n }));
}

/** A real server on one end of a pair; the test reads its frames as a client would. */
async function serverFrames(
  items: Item[],
  options: { batches: boolean; maxPayloadBytes?: number },
) {
  const [serverEnd, clientEnd] = channelPair({ sendWith: true, ...options });
  const { provider, accept } = pairProvider(serverEnd, clientEnd);
  const server = new RpcServer(provider).addService(
    Svc,
    {
      async *list(r) {
        for (const item of itemsOf(r)) yield item;
      },
    },
    { codec: jsonCodec },
  );
  await server.listen();
  accept();
  const frames: Frame[] = [];
  clientEnd.start({ onFrame: (t, p) => frames.push([t, p]), onClose: () => {} });
  clientEnd.send(
    FrameType.Request,
    encodeRequest(
      1,
      FLAG_END_STREAM | FLAG_HAS_MESSAGE,
      0,
      utf8.encode("/test.Batch/list"),
      undefined,
      json.encode({ n: JSON.stringify(items.map((i) => i.n)) }),
    ),
  );
  for (let i = 0; i < 100 && frames.at(-1)?.[0] !== FrameType.Status; i++) await tick();
  await server.close({ graceMs: 0 });
  return frames;
}

/** The messages of MESSAGE and BATCH frames, in order, as decoded items. */
function messagesOf(frames: Frame[]): Item[] {
  const out: Item[] = [];
  for (const [type, p] of frames) {
    if (type === FrameType.Message) out.push(json.decode(p.subarray(4)));
    if (type === FrameType.Batch) {
      assert.ok(checkBatch(p) >= 2, "a batch of one goes as a MESSAGE");
      for (let at = 4; at < p.byteLength; ) {
        const n = readU32(p, at);
        out.push(json.decode(p.subarray(at + 4, at + 4 + n)));
        at += 4 + n;
      }
    }
  }
  return out;
}

const range = (k: number): Item[] => Array.from({ length: k }, (_, i) => ({ n: i }));

describe("BATCH: the sender (PROTOCOL.md §5.2)", () => {
  it("a server stream's messages go in one BATCH, then the STATUS", async () => {
    const items = range(30);
    const frames = await serverFrames(items, { batches: true });
    assert.deepEqual(
      frames.map(([t]) => t),
      [FrameType.Batch, FrameType.Status],
    );
    assert.equal(readU32(frames[0]?.[1] as Uint8Array, 0), 1, "the call id");
    assert.deepEqual(messagesOf(frames), items);
  });

  it("to a peer that did not announce BATCH: one MESSAGE per message", async () => {
    const items = range(30);
    const frames = await serverFrames(items, { batches: false });
    assert.deepEqual(
      frames.map(([t]) => t),
      [...items.map(() => FrameType.Message), FrameType.Status],
    );
    assert.deepEqual(messagesOf(frames), items);
  });

  it("a batch of one message is a MESSAGE", async () => {
    const frames = await serverFrames(range(1), { batches: true });
    assert.deepEqual(
      frames.map(([t]) => t),
      [FrameType.Message, FrameType.Status],
    );
    assert.deepEqual(messagesOf(frames), range(1));
  });

  it("batches stay within 4 KiB and the peer's frame limit, and keep the order", async () => {
    // About 310 B each: below a quarter of either batch, so every one is batched.
    const items = range(30).map((_, i) => ({ n: `${i}:${"x".repeat(300)}` }));
    for (const limit of [1024 * 1024, 1500]) {
      const frames = await serverFrames(items, { batches: true, maxPayloadBytes: limit });
      const batches = frames.filter(([t]) => t === FrameType.Batch);
      assert.ok(batches.length >= 3, `${limit}: ${batches.length} batches`);
      for (const [, p] of batches) assert.ok(p.byteLength <= Math.min(BATCH_BYTES, limit));
      assert.deepEqual(messagesOf(frames), items, `${limit}: every message, in order`);
    }
  });

  it("a batched message above a quarter batch: the next one goes alone, after the batch", async () => {
    // 1.1 KiB fits the batch's room but is above a quarter of it: the message after it is
    // sent alone, and the batch holding it must go first.
    const items = [...range(3), { n: "z".repeat(1100) }, ...range(3), { n: "w".repeat(1100) }];
    const frames = await serverFrames(items, { batches: true });
    assert.deepEqual(messagesOf(frames), items);
  });

  it("a message above a quarter batch goes alone, between batches, in order", async () => {
    const big = { n: "y".repeat(BATCH_BYTES) };
    const items = [...range(5), big, ...range(5), big, big, ...range(3)];
    const frames = await serverFrames(items, { batches: true });
    assert.deepEqual(messagesOf(frames), items);
    const bigFrames = frames.filter(([t, p]) => t === FrameType.Message && p.byteLength > 1000);
    assert.equal(bigFrames.length, 3);
    assert.equal(frames.at(-1)?.[0], FrameType.Status);
  });
});

/** A real client on one end of a pair; the test plays the server with raw frames. */
function rawServer(batches: boolean) {
  const [serverEnd, clientEnd] = channelPair({ batches });
  let closedWith: NearwireError | undefined | null = null;
  const sent: Frame[] = (serverEnd as unknown as { sent: Frame[] }).sent;
  serverEnd.start({
    onFrame: () => {},
    onClose: (e) => {
      closedWith = e;
    },
  });
  const conn = connectRpc(clientEnd as Channel);
  const client = conn.client(Svc, { codec: jsonCodec });
  return {
    client,
    clientEnd,
    closed: () => closedWith,
    /** What the client sent (the server end's peer). */
    clientSent: () => (clientEnd as unknown as { sent: Frame[] }).sent,
    sent,
    send: (t: number, p: Uint8Array) => serverEnd.send(t, p),
  };
}

/** A BATCH payload: the call id, then each message as (u32 length, bytes). */
function batch(callId: number, messages: Uint8Array[], tail: number[] = []): Uint8Array {
  const total = 4 + messages.reduce((a, m) => a + 4 + m.byteLength, 0) + tail.length;
  const p = new Uint8Array(total);
  putU32(p, 0, callId);
  let at = 4;
  for (const m of messages) {
    putU32(p, at, m.byteLength);
    p.set(m, at + 4);
    at += 4 + m.byteLength;
  }
  p.set(tail, at);
  return p;
}

async function collect(it: AsyncIterable<Item>): Promise<{ items: Item[]; error?: unknown }> {
  const items: Item[] = [];
  try {
    for await (const x of it) items.push(x);
    return { items };
  } catch (error) {
    return { items, error };
  }
}

describe("BATCH: the receiver (PROTOCOL.md §5.7, §5.10)", () => {
  it("delivers a BATCH's messages in order, each taking one credit", async () => {
    const s = rawServer(true);
    const stream = collect(s.client.list({ n: "[]" }));
    await tick();
    const messages = range(40).map((i) => json.encode(i));
    s.send(FrameType.Batch, batch(1, messages.slice(0, 20)));
    s.send(FrameType.Batch, batch(1, messages.slice(20, 40)));
    await tick();
    // 40 consumed of a 32 window: the client granted credit, as for 40 MESSAGEs (16 + 4064,
    // then 2048 once half the grown window is consumed: PROTOCOL.md §5.4).
    const credits = s
      .clientSent()
      .filter(([t]) => t === FrameType.Credit)
      .map(([, p]) => decodeCredit(p));
    assert.deepEqual(credits, [{ callId: 1, credit: 16 + 4096 - 32 }]);
    s.send(FrameType.Status, encodeStatus(1, Code.OK, "", undefined, undefined));
    const got = await stream;
    assert.equal(got.error, undefined);
    assert.deepEqual(got.items, range(40));
  });

  const bad: [string, Uint8Array, string][] = [
    ["only a call id", batch(1, []), "malformed BATCH frame"],
    ["a length past the end", batch(1, [json.encode({ n: 1 })]).subarray(0, 12), "malformed"],
    [
      "bytes left that cannot hold a length",
      batch(1, [json.encode({ n: 1 })], [0, 0]),
      "malformed",
    ],
    ["a call id no REQUEST started", batch(9, [json.encode({ n: 1 })]), "never started"],
    [
      "more than 32 past the credit",
      batch(
        1,
        range(65).map((i) => json.encode(i)),
      ),
      "past its credit",
    ],
  ];
  for (const [what, payload, message] of bad) {
    it(`${what}: INTERNAL protocol-violation, connection closed, nothing of it delivered`, async () => {
      const s = rawServer(true);
      const stream = collect(s.client.list({ n: "[]" }));
      await tick();
      s.send(FrameType.Batch, batch(1, [json.encode({ n: "before" })]));
      s.send(FrameType.Batch, payload);
      const got = await stream;
      assert.deepEqual(got.items, [{ n: "before" }], "only the good BATCH before it");
      assert.ok(got.error instanceof NearwireError);
      assert.equal(got.error.code, Code.Internal);
      assert.equal(got.error.reason, "protocol-violation");
      assert.match(got.error.message, new RegExp(message));
      assert.equal(s.clientEnd.closed, true, "the client closed the connection");
    });
  }

  it("at a client that did not announce BATCH: unknown-frame-type", async () => {
    const s = rawServer(false);
    const stream = collect(s.client.list({ n: "[]" }));
    await tick();
    s.send(FrameType.Batch, batch(1, [json.encode({ n: 1 }), json.encode({ n: 2 })]));
    const got = await stream;
    assert.deepEqual(got.items, []);
    assert.ok(got.error instanceof NearwireError);
    assert.equal(got.error.code, Code.Internal);
    assert.equal(got.error.reason, "unknown-frame-type");
    assert.match(got.error.message, /did not announce BATCH \(PROTOCOL\.md §4\.1\)/);
  });

  it("for a call that ended: ignored, the connection stays", async () => {
    const s = rawServer(true);
    const first = collect(s.client.list({ n: "[]" }));
    await tick();
    s.send(FrameType.Status, encodeStatus(1, Code.OK, "", undefined, undefined));
    assert.deepEqual(await first, { items: [] });
    s.send(FrameType.Batch, batch(1, [json.encode({ n: 1 }), json.encode({ n: 2 })]));
    const second = collect(s.client.list({ n: "[]" }));
    await tick();
    s.send(FrameType.Batch, batch(2, [json.encode({ n: 3 }), json.encode({ n: 4 })]));
    s.send(FrameType.Status, encodeStatus(2, Code.OK, "", undefined, undefined));
    assert.deepEqual(await second, { items: [{ n: 3 }, { n: 4 }] });
    assert.equal(s.closed(), null, "still open");
  });
});
