import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createMsgpackCodec } from "@nearwire/codec-msgpack";
import { type ServerProcess, startServerProcess } from "@nearwire/conformance";
import { Code, type NearwireError } from "@nearwire/core";
import {
  createShmRingTransport,
  envelopeHeadroomFor,
  MAX_RING_BYTES,
  MIN_RING_BYTES,
  maxMessageBytesFor,
  maxPayloadFor,
} from "../src/index.js";
import { leakCheckedTempDir } from "./fixtures/helpers.js";
import { type Blob, BytesService, blob } from "./fixtures/in-place-server.js";

// Issue 10 item 9: rings of 128 KiB and less used to get a negative message limit.
const tmp = leakCheckedTempDir("nw-shm-tiny-");
const codec = createMsgpackCodec();

/** A blob whose msgpack encoding is at most `bytes` (map, two keys, int, bin header ≤ 24 B). */
const blobOfEncoded = (seq: number, bytes: number) => blob(seq, Math.max(0, bytes - 24));

it("the default message limit is positive and fits one record for every ring size", () => {
  for (let ring = MIN_RING_BYTES; ring <= MAX_RING_BYTES; ring *= 2) {
    const limit = maxMessageBytesFor(ring);
    assert.ok(limit > 0, `ring ${ring}: limit ${limit}`);
    assert.ok(limit + envelopeHeadroomFor(ring) <= maxPayloadFor(ring), `ring ${ring}`);
  }
  assert.equal(maxMessageBytesFor(4096), 1524);
  assert.equal(maxMessageBytesFor(4 * 1024 * 1024), 2 * 1024 * 1024 - 64 * 1024 - 16);
  assert.throws(
    () => maxMessageBytesFor(1000),
    (e: NearwireError) => e.code === Code.InvalidArgument,
  );
});

for (const ringBytes of [4096, 64 * 1024]) {
  describe(`unary and streaming RPC between two processes over ${ringBytes} B rings`, () => {
    const address = tmp.sock(`tiny${ringBytes}`);
    const limit = maxMessageBytesFor(ringBytes);
    let server: ServerProcess;
    before(async () => {
      server = await startServerProcess(new URL("./fixtures/in-place-server.ts", import.meta.url), [
        address,
        String(ringBytes),
      ]);
    });
    after(async () => {
      await server.stop();
    });

    it(`carries messages up to maxMessageBytes (${limit} B); a larger one fails its call with RESOURCE_EXHAUSTED and the connection stays usable`, async () => {
      const conn = await createShmRingTransport({ address, ringBytes }).connect();
      const c = conn.client(BytesService, { codec });
      for (const size of [0, 1, 100, limit]) {
        const want = blobOfEncoded(size, size);
        const got = (await c.echo(want)) as Blob;
        assert.equal(got.seq, size + 1);
        assert.ok(Buffer.from(got.data).equals(Buffer.from(want.data)), `size ${size}`);
      }
      for (const size of [limit + 1, ringBytes, 4 * ringBytes]) {
        await assert.rejects(
          c.echo(blob(1, size)),
          (e: NearwireError) => e.code === Code.ResourceExhausted,
        );
        assert.equal(((await c.echo(blob(7, 10))) as Blob).seq, 8, "usable after the refusal");
      }
      let i = 0;
      for await (const b of c.fan({ seq: 200, data: new Uint8Array(Math.min(100, limit / 4)) })) {
        assert.equal(b.seq, i++);
      }
      assert.equal(i, 200);
      await conn.close();
    });

    it("a client that assumes bigger rings gets RESOURCE_EXHAUSTED for what the server's rings cannot carry, and stays usable", async () => {
      const conn = await createShmRingTransport({ address }).connect();
      const c = conn.client(BytesService, { codec });
      // Over the server's message limit but within one record: the server refuses it.
      const overServerLimit = Math.min(limit + 64, maxPayloadFor(ringBytes) - 128);
      for (const size of [overServerLimit, 2 * ringBytes]) {
        await assert.rejects(
          c.echo(blob(1, size)),
          (e: NearwireError) => e.code === Code.ResourceExhausted,
        );
        assert.equal(((await c.echo(blob(3, 10))) as Blob).seq, 4);
      }
      await conn.close();
    });
  });
}
