/**
 * lendingCheck: a client-streaming handler fed large messages by a client in another process,
 * to see what `lendMessages` does on a transport — every message intact when the handler takes
 * it, and how many distinct buffers held them.
 */
import { fileURLToPath } from "node:url";
import {
  clientStreaming,
  createCodec,
  defineService,
  type Interceptor,
  lendMessages,
  messageType,
} from "@nearwire/core";
import { spawnTsChild } from "./child-process.js";
import { loadFactory } from "./module-refs.js";
import { createTmpResources } from "./tmp-resources.js";

const Bytes = messageType<Uint8Array>("nearwire.test.Bytes");
const Count = messageType<{ count: number }>("nearwire.test.Count");
/** One client-streaming method of raw byte messages. */
export const Sink = defineService("nearwire.test.Sink", { Take: clientStreaming(Bytes, Count) });
/** Byte messages as they are (decoded messages are views of the frame); the reply as JSON. */
export const sinkCodec = createCodec("sink-bytes", {
  "nearwire.test.Bytes": {
    decodesInPlace: true,
    encode: (v) => v as Uint8Array,
    decode: (b) => b,
  },
  "nearwire.test.Count": {
    decodesInPlace: false,
    encode: (v) => new TextEncoder().encode(JSON.stringify(v)),
    decode: (b) => JSON.parse(new TextDecoder().decode(b)) as { count: number },
  },
});

/** Message `i` of a stream: `size` bytes, byte j = (i * 7 + j) & 0xff. */
export function patterned(i: number, size: number): Uint8Array {
  const m = new Uint8Array(size);
  for (let j = 0; j < size; j++) m[j] = (i * 7 + j) & 0xff;
  return m;
}

/** Options of {@link lendingCheck}. */
export interface LendingCheckOptions {
  /** URL of the transport's factory module (as for `transportSuite`). */
  factoryModule: string;
  /** Where the server listens. */
  address: string;
  /** Mark the handler with `lendMessages`. */
  lend: boolean;
  /** Serve the method inside these interceptors. */
  interceptors?: Interceptor[];
  /** Messages the client sends (default 300) … */
  count?: number;
  /** … of this many bytes each (default 64 KiB). */
  size?: number;
}

/** What the handler saw. */
export interface LendingCheckResult {
  /** Messages taken. */
  count: number;
  /** Indexes of the messages whose bytes were not what was sent when they were taken. */
  bad: number[];
  /** Distinct ArrayBuffers the messages were views of. */
  buffers: number;
}

/**
 * Serves `Sink.Take` in this process (a handler that checks each message when it takes it and
 * keeps nothing), runs {@link lending-client} against it in a child process and returns what the
 * handler saw. The child's reply must count every message.
 */
export async function lendingCheck(options: LendingCheckOptions): Promise<LendingCheckResult> {
  const count = options.count ?? 300;
  const size = options.size ?? 64 * 1024;
  const seen = { count: 0, bad: [] as number[], buffers: new Set<ArrayBufferLike>() };
  const take = async (requests: AsyncIterable<Uint8Array>) => {
    for await (const m of requests) {
      // Checked when taken: a buffer reused too early would hold another message's bytes.
      const want = patterned(seen.count, size);
      if (m.byteLength !== size || !m.every((b, j) => b === want[j])) seen.bad.push(seen.count);
      seen.buffers.add(m.buffer);
      seen.count++;
    }
    return { count: seen.count };
  };
  const factory = await loadFactory(options.factoryModule);
  const server = (await factory.createTransport(options.address)).createServer();
  server.addService(
    Sink,
    { Take: options.lend ? lendMessages(take) : take },
    {
      codec: sinkCodec,
      ...(options.interceptors === undefined ? {} : { interceptors: options.interceptors }),
    },
  );
  await server.listen();
  const tmp = createTmpResources();
  try {
    const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
    const client = spawnTsChild(
      fileURLToPath(new URL(`./lending-client${ext}`, import.meta.url)),
      [options.factoryModule, server.address, String(count), String(size)],
      tmp,
    );
    const line = await client.waitForLine("COUNT ", 60_000);
    if (line !== `COUNT ${count}`) throw new Error(`client: ${line}; ${client.stderr()}`);
    await client.exited;
  } finally {
    await server.close();
    await tmp.cleanup();
  }
  return { count: seen.count, bad: seen.bad, buffers: seen.buffers.size };
}
