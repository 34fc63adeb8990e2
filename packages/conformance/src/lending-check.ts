/**
 * lendingCheck: large messages streamed from another process to a receiver that lends them — a
 * client-streaming handler (`lendMessages`) or a client reading a response stream
 * (`CallOptions.lendMessages`) — to see what lending does on a transport: every message intact
 * when the receiver takes it, and how many distinct buffers held them.
 */
import { AssertionError } from "node:assert";
import { fileURLToPath } from "node:url";
import {
  clientStreaming,
  createCodec,
  defineService,
  type Interceptor,
  lendMessages,
  messageType,
  serverStreaming,
} from "@nearwire/core";
import { spawnChild } from "./child-process.js";
import { loadFactory } from "./module-refs.js";
import { createTmpResources } from "./tmp-resources.js";

/** A raw byte message, and a count (with a size) as JSON: the messages of the checks' services. */
export const Bytes = messageType<Uint8Array>("nearwire.test.Bytes");
export const Count = messageType<{ count: number; size?: number }>("nearwire.test.Count");
/**
 * Raw byte messages one way or the other: `Take` counts a request stream; `Emit` streams `count`
 * patterned messages of `size` bytes.
 */
export const Sink = defineService("nearwire.test.Sink", {
  Take: clientStreaming(Bytes, Count),
  Emit: serverStreaming(Count, Bytes),
});
/**
 * Byte messages as they are (decoded messages are views of the frame; encoded in place where a
 * transport takes it, so a sender's reuse of its send buffers is checked too); the reply as JSON.
 */
export const sinkCodec = createCodec("sink-bytes", {
  "nearwire.test.Bytes": {
    decodesInPlace: true,
    encode: (v) => v as Uint8Array,
    encodeIntoRange: (v, dest, start, end) => {
      const bytes = v as Uint8Array;
      if (bytes.byteLength > end - start) return -1;
      dest.set(bytes, start);
      return bytes.byteLength;
    },
    decode: (b) => b,
  },
  "nearwire.test.Count": {
    decodesInPlace: false,
    encode: (v) => new TextEncoder().encode(JSON.stringify(v)),
    decode: (b) => JSON.parse(new TextDecoder().decode(b)) as { count: number; size?: number },
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
  /**
   * Who receives the messages: the server's client-streaming handler (`requests`, the default;
   * the client runs in a child process) or the client reading a server-streaming call
   * (`responses`; the server runs in a child process).
   */
  direction?: "requests" | "responses";
  /** Lend: mark the handler with `lendMessages`, or call with `lendMessages: true`. */
  lend: boolean;
  /** Serve the method (or make the client) inside these interceptors. */
  interceptors?: Interceptor[];
  /** Messages the client sends (default 300) … */
  count?: number;
  /** … of this many bytes each (default 64 KiB) … */
  size?: number;
  /**
   * … in this many calls one after another on one connection (default 1; requests only): a
   * handler's last message must go back when it returns, or each call keeps one more buffer.
   */
  calls?: number;
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
 * Receives the messages in this process, sent by {@link lending-peer} in a child process, and
 * returns what the receiver saw; it checks each message when it takes it and keeps nothing.
 * Every message must arrive.
 */
export async function lendingCheck(options: LendingCheckOptions): Promise<LendingCheckResult> {
  const count = options.count ?? 300;
  const size = options.size ?? 64 * 1024;
  const seen = { count: 0, bad: [] as number[], buffers: new Set<ArrayBufferLike>() };
  /** Takes messages until the stream ends or `until` were taken in all (then returns at once). */
  const check = async (messages: AsyncIterable<Uint8Array>, until = Number.POSITIVE_INFINITY) => {
    for await (const m of messages) {
      // Checked when taken: a buffer reused too early would hold another message's bytes.
      const want = patterned(seen.count, size);
      if (m.byteLength !== size || !m.every((b, j) => b === want[j])) seen.bad.push(seen.count);
      seen.buffers.add(m.buffer);
      seen.count++;
      if (seen.count >= until) break;
    }
  };
  const interceptors =
    options.interceptors === undefined ? {} : { interceptors: options.interceptors };
  const factory = await loadFactory(options.factoryModule);
  const tmp = createTmpResources();
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  const peer = fileURLToPath(new URL(`./lending-peer${ext}`, import.meta.url));
  try {
    if (options.direction === "responses") {
      const server = spawnChild(peer, ["server", options.factoryModule, options.address], tmp, [
        options.factoryModule,
      ]);
      try {
        const address = (await server.waitForLine("LISTENING ", 60_000)).slice(10);
        const connection = await (await factory.createTransport(address)).connect();
        try {
          const client = connection.client(Sink, { codec: sinkCodec, ...interceptors });
          await check(client.Emit({ count, size }, { lendMessages: options.lend }));
        } finally {
          await connection.close();
        }
      } finally {
        server.signal("SIGTERM");
        await server.exited;
      }
      if (seen.count !== count) throw new Error(`${seen.count} of ${count} messages arrived`);
    } else {
      // A handler returns as soon as it has its call's last message, as an upload that commits
      // on it does: it never asks for more, so only its return can give that message back.
      const calls = options.calls ?? 1;
      let call = 0;
      const take = async (requests: AsyncIterable<Uint8Array>) => {
        await check(requests, Math.floor((count * ++call) / calls));
        return { count: seen.count };
      };
      const server = (await factory.createTransport(options.address)).createServer();
      server.addService(
        Sink,
        { Take: options.lend ? lendMessages(take) : take, Emit: async function* () {} },
        { codec: sinkCodec, ...interceptors },
      );
      await server.listen();
      try {
        const client = spawnChild(
          peer,
          [
            "client",
            options.factoryModule,
            server.address,
            String(count),
            String(size),
            String(options.calls ?? 1),
          ],
          tmp,
          [options.factoryModule],
        );
        const line = await client.waitForLine("COUNT ", 60_000);
        if (line !== `COUNT ${count}`) throw new Error(`client: ${line}; ${client.stderr()}`);
        await client.exited;
      } finally {
        await server.close();
      }
    }
  } finally {
    await tmp.cleanup();
  }
  return { count: seen.count, bad: seen.bad, buffers: seen.buffers.size };
}

/**
 * Asserts what a {@link lendingCheck} of the default 300 messages must show: every message
 * arrived intact, and a few dozen buffers served them all when `lends` (the receiver's buffers
 * went back and were reused), else about one buffer each.
 */
export function assertLending(seen: LendingCheckResult, lends: boolean): void {
  if (seen.count !== 300) throw new AssertionError({ message: `${seen.count} of 300 messages` });
  if (seen.bad.length > 0)
    throw new AssertionError({ message: `messages not intact when taken: ${seen.bad.join(", ")}` });
  // A sender refilled with credit runs ahead by its window: a few dozen buffers at most.
  if (lends ? seen.buffers > 48 : seen.buffers <= 290)
    throw new AssertionError({
      message: `${seen.buffers} buffers for 300 messages (${lends ? "at most 48" : "more than 290"} expected)`,
    });
}

/**
 * A shorthand for a transport's tests: `check(lend, interceptors?, direction?)` runs a
 * {@link lendingCheck} against `factoryModule` at a fresh `address()` each time.
 */
export function lendingChecker(
  factoryModule: string,
  address: () => string,
): (
  lend: boolean,
  interceptors?: Interceptor[],
  direction?: "requests" | "responses",
  calls?: number,
) => Promise<LendingCheckResult> {
  return (lend, interceptors, direction = "requests", calls = 1) =>
    lendingCheck({
      factoryModule,
      address: address(),
      lend,
      direction,
      calls,
      ...(interceptors === undefined ? {} : { interceptors }),
    });
}
