import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { startServerProcess } from "@nearwire/conformance";
import {
  Code,
  createCodec,
  defineService,
  messageType,
  NearwireError,
  serverStreaming,
} from "@nearwire/core";
import { createUdsTransport } from "../src/index.js";
import { tempDir } from "./support/channels.js";

// A server that floods its client past the credit the client granted (PROTOCOL.md §5.4), from
// another process: the client must not read on and buffer the flood (4,096 × 64 KiB = 256 MiB
// offered) but fail with a protocol error, keeping its memory bounded. The well-behaved case,
// a client that stops reading a stream on every transport, is the conformance backpressure
// suite's.
const MiB = 1024 * 1024;
const Bytes = messageType<Uint8Array>("nearwire.test.Bytes");
const Flood = defineService("nearwire.test.Flood", { Flood: serverStreaming(Bytes, Bytes) });
const bytesCodec = createCodec("bytes", {
  "nearwire.test.Bytes": {
    decodesInPlace: false,
    encode: (v) => v as Uint8Array,
    decode: (b) => b,
  },
});

describe("client memory against a server that ignores credit (another process)", () => {
  const tmp = tempDir();
  after(() => tmp.cleanup());

  it("fails the connection INTERNAL past-credit instead of buffering; memory stays bounded", async (t) => {
    const address = tmp.path("flood.sock");
    const server = await startServerProcess(
      new URL("./fixtures/credit-ignoring-server.ts", import.meta.url),
      [address],
    );
    try {
      const conn = await createUdsTransport({ address }).connect();
      const before = process.memoryUsage.rss();
      const it = conn
        .client(Flood, { codec: bytesCodec })
        .Flood(new Uint8Array(1))
        [Symbol.asyncIterator]();
      // The reader takes one message, then stalls while the server keeps sending.
      const first = await it.next();
      assert.equal(first.done, false);
      assert.equal(first.value?.byteLength, 64 * 1024);
      await new Promise((r) => setTimeout(r, 500));
      const error = await (async () => {
        for (;;) {
          try {
            if ((await it.next()).done) return undefined;
          } catch (e) {
            return e;
          }
        }
      })();
      const growth = process.memoryUsage.rss() - before;
      assert.ok(error instanceof NearwireError, `the stream ended with ${String(error)}`);
      t.diagnostic(
        `stream ended ${error.code} "${error.message}"; client RSS grew ${(growth / MiB).toFixed(1)} MiB`,
      );
      assert.ok(
        error.code === Code.Internal || error.code === Code.Unavailable,
        `code ${error.code}: ${error.message}`,
      );
      assert.match(error.message, /past its credit/);
      assert.ok(growth < 64 * MiB, `client RSS grew ${(growth / MiB).toFixed(1)} MiB`);
      await conn.close();
    } finally {
      await server.stop();
    }
  });
});
