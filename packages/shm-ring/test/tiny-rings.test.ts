import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createMsgpackCodec } from "@nearwire/codec-msgpack";
import { type ServerProcess, startServerProcess } from "@nearwire/conformance";
import { Code, type NearwireError } from "@nearwire/core";
import {
  createShmRingChannelProvider,
  createShmRingTransport,
  maxFrameBytesFor,
} from "../src/index.js";
import { maxPayloadFor } from "../src/subpath-ring.js";
import { type Blob, BytesService, blob } from "./fixtures/in-place-server.js";
import { leakCheckedTempDir } from "./support/leak-checks.js";

// Issue 10 item 9: rings of 128 KiB and less used to get a negative message limit.
const tmp = leakCheckedTempDir("nw-shm-tiny-");
const codec = createMsgpackCodec();

/** A blob whose msgpack encoding is at most `bytes` (map, two keys, int, bin header ≤ 24 B). */
const blobOfEncoded = (seq: number, bytes: number) => blob(seq, Math.max(0, bytes - 24));

it("the default frame limit is the 4 MiB message limit plus 64 KiB, whatever the ring size", () => {
  assert.equal(maxFrameBytesFor(), 4 * 1024 * 1024 + 64 * 1024);
  assert.equal(maxFrameBytesFor(1000), 1000 + 64 * 1024);
});

for (const ringBytes of [4096, 64 * 1024, 4 * 1024 * 1024]) {
  describe(`unary and streaming RPC between two processes over ${ringBytes} B rings`, () => {
    const address = tmp.sock(`tiny${ringBytes}`);
    // Issue 15: the same 4 MiB default as uds and grpc-uds; the ring size does not cap it.
    const limit = 4 * 1024 * 1024;
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
      for (const size of [limit + 1, 2 * limit]) {
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

    it("a client asking for a smaller frame limit gets it from the server: send refuses a bigger frame with RESOURCE_EXHAUSTED frame-too-large, the channel stays open", async () => {
      const maxFrameBytes = maxPayloadFor(ringBytes) + 100;
      const channel = await createShmRingChannelProvider({ address, maxFrameBytes }).connect();
      assert.equal(channel.maxPayloadBytes, maxFrameBytes);
      assert.throws(
        () => channel.send(0x80, new Uint8Array(maxFrameBytes + 1)),
        (e: NearwireError) => e.code === Code.ResourceExhausted && e.reason === "frame-too-large",
      );
      assert.equal(channel.closed, false);
      await channel.close();
    });
  });
}
