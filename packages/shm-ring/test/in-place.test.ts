import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createMsgpackCodec } from "@nearwire/codec-msgpack";
import { type ServerProcess, startServerProcess } from "@nearwire/conformance";
import { createShmRingTransport } from "../src/index.js";
import { type Blob, BytesService, blob } from "./fixtures/in-place-server.js";
import { leakCheckedTempDir } from "./support/leak-checks.js";

// A codec with encodeInto makes the engine encode straight into the ring slot (Channel.sendWith)
// on both sides; sizes up to 300 KiB cross the ring's wrap point many times (4 MiB rings).
const tmp = leakCheckedTempDir("nw-shm-inplace-");
const address = tmp.sock("inplace");
let server: ServerProcess;

function same(got: Blob, want: Blob, what: string): void {
  assert.equal(got.seq, want.seq, `${what}: seq`);
  assert.equal(got.data.byteLength, want.data.byteLength, `${what}: size`);
  assert.ok(Buffer.from(got.data).equals(Buffer.from(want.data)), `${what}: bytes differ`);
}

describe("shm-ring: messages encoded in place in the ring slot", () => {
  before(async () => {
    server = await startServerProcess(new URL("./fixtures/in-place-server.ts", import.meta.url), [
      address,
    ]);
  });
  after(async () => {
    await server.stop();
  });

  it("unary: 3,000 calls from 0 B to 300 KiB come back intact", async () => {
    const conn = await createShmRingTransport({ address }).connect();
    const c = conn.client(BytesService, { codec: createMsgpackCodec() });
    for (let i = 0; i < 3000; i++) {
      const size = i % 10 === 0 ? (i * 7919) % 300_000 : (i * 131) % 4096;
      const want = blob(i, size);
      same(await c.echo(want), { ...want, seq: i + 1 }, `call ${i}`);
    }
    await conn.close();
  });

  it("server stream and bidi: 2,000 messages each, in order and intact", async () => {
    const conn = await createShmRingTransport({ address }).connect();
    const c = conn.client(BytesService, { codec: createMsgpackCodec() });
    let i = 0;
    for await (const b of c.fan({ seq: 2000, data: new Uint8Array(100) })) {
      same(b, blob(i, 100 + (i % 977)), `fan ${i}`);
      i++;
    }
    assert.equal(i, 2000);
    const sent = Array.from({ length: 2000 }, (_, k) => blob(k, (k * 389) % 20_000));
    let j = 0;
    for await (const b of c.mirror(sent)) {
      same(b, sent[j] as Blob, `mirror ${j}`);
      j++;
    }
    assert.equal(j, 2000);
    await conn.close();
  });
});
