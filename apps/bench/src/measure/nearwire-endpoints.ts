import { seededBytes } from "@nearwire/conformance/seeded";
import {
  type Channel,
  type Codec,
  createCodec,
  defineService,
  type MessageCodec,
  messageType,
  serverStreaming,
  unary,
} from "@nearwire/core";
import type { CaseSpec } from "./case-spec.js";
import {
  type BenchClient,
  type BenchServer,
  decodeStreamRequest,
  ECHO_FRAME,
  encodeStreamRequest,
  ReplyQueue,
  STREAM_FRAME,
  STREAM_REQUEST_FRAME,
} from "./endpoint.js";
import type { BenchMessages, TransportPlugin } from "./plugins.js";

/**
 * nearwire ends of a case: the RPC layer (a service whose handlers echo the decoded message, so
 * a round trip pays encode and decode on both sides) and the channel layer (raw frames of
 * application type 0x80 echoed as they are).
 */

/** The benchmark service; the codec is bound per case. */
export function benchService(messages: BenchMessages) {
  const t = messages.messageTypes;
  return defineService("nearwire.bench.BenchService", {
    echoTick: unary(t.tick, t.tick),
    echoRequest: unary(t.request, t.request),
    echoMetric: unary(t.metric, t.metric),
    echoChunk: unary(t.chunk, t.chunk),
    /** Request: a Chunk whose `seq` is the message count and whose data size is the size to send. */
    streamChunks: serverStreaming(t.chunk, t.chunk),
  });
}

/**
 * The `bytes` codec: a message is its bytes (encode and decode return them as they are). With
 * it an RPC row costs what the engine and the transport cost, and nothing for a codec: the
 * like-for-like counterpart of the bare baselines' `bytes` rows.
 */
const passThrough: MessageCodec<Uint8Array> = {
  decodesInPlace: true,
  encode: (v) => v,
  decode: (b) => b,
  encodeInto(v, dest, offset) {
    if (dest.byteLength - offset < v.byteLength) return -1;
    dest.set(v, offset);
    return v.byteLength;
  },
};
const BytesType = messageType<Uint8Array>("nearwire.bench.Bytes");
const bytesCodec = createCodec("bytes", { [BytesType.name]: passThrough as MessageCodec<unknown> });

/** The service of the `bytes` rows: echo, and a stream request `(u32 count, u32 size)`. */
const bytesService = defineService("nearwire.bench.BytesService", {
  echo: unary(BytesType, BytesType),
  stream: serverStreaming(BytesType, BytesType),
});

type ChunkLike = { seq?: unknown; data?: { byteLength?: unknown } };

function chunkRequest(value: unknown): { count: number; size: number } {
  const c = value as ChunkLike;
  return { count: Number(c.seq), size: Number(c.data?.byteLength ?? 0) };
}

function findCodec(messages: BenchMessages, name: string): Codec {
  const codec = messages.codecs.find((c) => c.name === name);
  if (codec === undefined) throw new Error(`codec ${name} not available`);
  return codec;
}

/** Starts a nearwire RPC server for the benchmark service. */
export async function startRpcServer(
  plugin: TransportPlugin,
  spec: CaseSpec,
  address: string,
  messages: BenchMessages,
): Promise<BenchServer> {
  if (plugin.transport === undefined) throw new Error(`${plugin.id} has no RPC transport`);
  const server = plugin.transport(address).createServer();
  const echo = (m: unknown) => m;
  if (spec.codec === "bytes") {
    server.addService(
      bytesService,
      {
        echo: (m) => m,
        async *stream(request) {
          const { count, size } = decodeStreamRequest(request);
          const payload = seededBytes(7, size);
          for (let i = 0; i < count; i++) yield payload;
        },
      },
      { codec: bytesCodec },
    );
    await server.listen();
    return { address: server.address, close: () => server.close({ graceMs: 200 }) };
  }
  server.addService(
    benchService(messages),
    {
      echoTick: echo,
      echoRequest: echo,
      echoMetric: echo,
      echoChunk: echo,
      async *streamChunks(request: unknown) {
        const { count, size } = chunkRequest(request);
        const chunk = messages.makeChunk(size, 1);
        for (let i = 0; i < count; i++) yield chunk;
      },
    },
    { codec: findCodec(messages, spec.codec) },
  );
  await server.listen();
  return { address: server.address, close: () => server.close({ graceMs: 200 }) };
}

/** Connects a nearwire RPC client for `spec`. */
export async function connectRpc(
  plugin: TransportPlugin,
  spec: CaseSpec,
  address: string,
  messages: BenchMessages,
  seed: number,
): Promise<BenchClient> {
  if (plugin.transport === undefined) throw new Error(`${plugin.id} has no RPC transport`);
  const conn = await plugin.transport(address).connect();
  if (spec.codec === "bytes") {
    const client = conn.client(bytesService, { codec: bytesCodec });
    const payload = seededBytes(seed, spec.payloadBytes);
    return {
      wireBytes: payload.byteLength,
      // The call's own promise, not an async wrapper around it (an extra promise and await
      // per call that the bare rows do not pay).
      roundTrip: () => client.echo(payload) as Promise<unknown> as Promise<void>,
      async stream(count) {
        let got = 0;
        for await (const _ of client.stream(encodeStreamRequest(count, spec.payloadBytes))) got++;
        if (got !== count) throw new Error(`rpc stream got ${got} of ${count}`);
      },
      close: () => conn.close(),
    };
  }
  const codec = findCodec(messages, spec.codec);
  const client = conn.client(benchService(messages), { codec });
  let value: unknown;
  let call: (v: unknown) => Promise<unknown>;
  switch (spec.message) {
    case "tick":
      value = messages.samples.tick;
      call = client.echoTick as (v: unknown) => Promise<unknown>;
      break;
    case "request":
      value = messages.samples.request;
      call = client.echoRequest as (v: unknown) => Promise<unknown>;
      break;
    case "metric":
      value = messages.samples.metric;
      call = client.echoMetric as (v: unknown) => Promise<unknown>;
      break;
    default: {
      const chunk = messages.makeChunk(spec.payloadBytes, 1) as { data?: Uint8Array };
      if (chunk.data instanceof Uint8Array) chunk.data.set(seededBytes(seed, spec.payloadBytes));
      value = chunk;
      call = client.echoChunk as (v: unknown) => Promise<unknown>;
    }
  }
  const wireBytes = codec.forType(messages.messageTypes[spec.message]).encode(value).byteLength;
  const stream = client.streamChunks as (v: unknown) => AsyncIterable<unknown>;
  return {
    wireBytes,
    roundTrip: () => call(value) as Promise<void>,
    async stream(count) {
      let got = 0;
      for await (const _ of stream(messages.makeChunk(spec.payloadBytes, count))) got++;
      if (got !== count) throw new Error(`rpc stream got ${got} of ${count}`);
    },
    close: () => conn.close(),
  };
}

/** How a channel server sends the `count` frames of one stream (a send loop by default). */
export type StreamSender = (ch: Channel, count: number, payload: Uint8Array) => void;

/** Starts a channel-layer echo/stream server; `send` streams the frames. */
export async function startChannelServer(
  plugin: TransportPlugin,
  address: string,
  send: StreamSender = (ch, count, payload) => void sendFrames(ch, count, payload),
): Promise<BenchServer> {
  if (plugin.channel === undefined) throw new Error(`${plugin.id} has no channel provider`);
  const channels = new Set<Channel>();
  const listener = await plugin.channel(address).listen((ch) => {
    channels.add(ch);
    ch.start({
      onFrame(type, payload) {
        if (type === ECHO_FRAME) ch.send(ECHO_FRAME, payload);
        else if (type === STREAM_REQUEST_FRAME) {
          const { count, size } = decodeStreamRequest(payload);
          send(ch, count, seededBytes(7, size));
        }
      },
      onClose() {
        channels.delete(ch);
      },
    });
  });
  return {
    address: listener.address,
    async close() {
      await listener.close();
      await Promise.all([...channels].map((c) => c.close()));
    },
  };
}

async function sendFrames(ch: Channel, count: number, payload: Uint8Array): Promise<void> {
  for (let i = 0; i < count && !ch.closed; i++) {
    if (!ch.send(STREAM_FRAME, payload)) await ch.drained();
  }
}

/** Connects a channel-layer client. */
export async function connectChannel(
  plugin: TransportPlugin,
  spec: CaseSpec,
  address: string,
  seed: number,
): Promise<BenchClient> {
  if (plugin.channel === undefined) throw new Error(`${plugin.id} has no channel provider`);
  const ch = await plugin.channel(address).connect();
  const replies = new ReplyQueue();
  let streamLeft = 0;
  let streamDone: (() => void) | undefined;
  ch.start({
    onFrame(type) {
      if (type === ECHO_FRAME) replies.reply();
      else if (type === STREAM_FRAME && --streamLeft === 0) streamDone?.();
    },
    onClose(error) {
      replies.fail(error ?? new Error("channel closed"));
    },
  });
  const payload = seededBytes(seed, spec.payloadBytes);
  return {
    wireBytes: payload.byteLength,
    roundTrip() {
      const p = replies.next();
      ch.send(ECHO_FRAME, payload);
      return p;
    },
    stream(count) {
      return new Promise<void>((resolve) => {
        streamLeft = count;
        streamDone = resolve;
        ch.send(STREAM_REQUEST_FRAME, encodeStreamRequest(count, payload.byteLength));
      });
    },
    close: () => ch.close(),
  };
}
