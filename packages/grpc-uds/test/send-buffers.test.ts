import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { after, describe, it } from "node:test";
import { patterned, Sink, sinkCodec } from "@nearwire/conformance";
import { createGrpcTransport } from "../src/index.js";
import { tempDir } from "./support/servers.js";

const SINK_SERVER = new URL("./fixtures/sink-server.ts", import.meta.url).pathname;
const SIZE = 64 * 1024;
const COUNT = 300;

// A client streams 300 messages of 64 KiB to a server (another process). With a stream window
// of 96 KiB flow control holds back part of nearly every message until the server's
// WINDOW_UPDATE. Each message is encoded in place into a buffer of the connection's send pool
// (64 KiB and a quarter more); the buffer must come back once the socket has written it, also
// when its tail waited for window, or the client makes one per message.
describe("grpc-uds send buffers of a bulk stream", () => {
  const tmp = tempDir();
  after(() => tmp.cleanup());

  /**
   * Streams the 300 messages to a sink server in another process with stream window `window`,
   * counting what `count` counts meanwhile; checks that every message arrived intact.
   */
  async function streamToSink(
    window: number,
    count: (run: () => Promise<void>) => Promise<number>,
  ): Promise<number> {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", SINK_SERVER, `${tmp.dir}/sink-${window}.sock`, String(window)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      const lines = createInterface({ input: child.stdout });
      const [line] = (await once(lines, "line")) as [string];
      assert.match(line, /^LISTENING /);
      const connection = await createGrpcTransport({ address: line.slice(10) }).connect();
      try {
        const client = connection.client(Sink, { codec: sinkCodec });
        const messages = Array.from({ length: COUNT }, (_, i) => patterned(i, SIZE));
        return await count(async () => {
          const reply = await client.Take(messages);
          assert.equal(reply.count, COUNT, "messages that arrived intact");
        });
      } finally {
        await connection.close();
      }
    } finally {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    }
  }

  it("a held-back message's send buffer is reused once written", async () => {
    const made = await streamToSink(96 * 1024, countingSendBuffers);
    // Without the give-back after a WINDOW_UPDATE: about one buffer per message (300).
    assert.ok(made <= 40, `send buffers made for ${COUNT} messages: ${made}`);
  });

  // A large DATA payload goes to the socket as its own buffer, corked with its frame header from
  // the connection's 64 KiB frame batch. The header must not take the batch with it: a bulk
  // stream then made a batch for nearly every message and held them in the socket's queue.
  it("a bulk stream's frame headers do not use up a frame batch each", async () => {
    const made = await streamToSink(1024 * 1024, countingFrameBatches);
    // Measured: 105 before (one for most large frames), 0 now (the connection's batch
    // stays); a few may be made while the socket holds a batch of small frames.
    assert.ok(made <= 4, `frame batches made for ${COUNT} messages: ${made}`);
  });
});

/** Runs `run`, counting frame batches made (`Buffer.allocUnsafeSlow` of 64 KiB). */
async function countingFrameBatches(run: () => Promise<void>): Promise<number> {
  const saved = Buffer.allocUnsafeSlow;
  let made = 0;
  Buffer.allocUnsafeSlow = (size: number) => {
    if (size === 64 * 1024) made++;
    return saved(size);
  };
  try {
    await run();
  } finally {
    Buffer.allocUnsafeSlow = saved;
  }
  return made;
}

/** Runs `run`, counting byte arrays made of a send buffer's size (over 70 000 bytes). */
async function countingSendBuffers(run: () => Promise<void>): Promise<number> {
  const g = globalThis as { Uint8Array: Uint8ArrayConstructor };
  const saved = g.Uint8Array;
  let made = 0;
  g.Uint8Array = new Proxy(saved, {
    construct(target, args, newTarget) {
      if (typeof args[0] === "number" && args[0] > 70_000) made++;
      return Reflect.construct(target, args, newTarget);
    },
  });
  try {
    await run();
  } finally {
    g.Uint8Array = saved;
  }
  return made;
}
