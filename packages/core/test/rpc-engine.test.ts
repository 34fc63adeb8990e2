import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  Code,
  type Codec,
  connectRpc,
  createCodec,
  defineService,
  jsonCodec,
  type MessageCodec,
  unary,
} from "../src/index.js";
import { FrameType } from "../src/protocol.js";
import { RpcServer } from "../src/rpc/rpc-server.js";
import { channelPair, pairProvider } from "./support/channel-pair.js";
import { engineCases } from "./support/engine-cases.js";
import { type Num, NumService, NumT, numHandlers } from "./support/num-service.js";

function setup(pair: { sendWith?: boolean } = {}, codec: Codec = jsonCodec) {
  const [serverEnd, clientEnd] = channelPair(pair);
  const { provider, accept } = pairProvider(serverEnd, clientEnd);

  const seen = { aborted: 0, produced: 0 };
  const server = new RpcServer(provider).addService(NumService, numHandlers(seen), { codec });
  return {
    seen,
    serverEnd,
    clientEnd,
    async start() {
      await server.listen();
      accept();
      const conn = connectRpc(clientEnd);
      return Object.assign(conn.client(NumService, { codec }), { conn });
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

engineCases("test channel pair", async () => {
  const s = setup();
  const client = await s.start();
  return { client, seen: s.seen, close: () => client.conn.close() };
});
