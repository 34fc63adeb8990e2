// The RPC engine alone: client and server in one thread over the memory transport, unary
// calls with a pass-through codec, `inFlight` loops of back-to-back calls. No timing per call
// (unlike nearwire-bench's engine rows, which time and record every call): this is the engine's
// own ceiling, and the allocation per call when --heap is given.
//
//   pnpm --filter @nearwire/core bench [-- --seconds 3 --in-flight 64 --bytes 64 --heap]
//
// --heap samples the V8 heap (inspector sampling heap profiler, every object kept or collected)
// over the measured window and prints bytes allocated per call by the hottest allocation sites.
import inspector from "node:inspector/promises";
import { parseArgs } from "node:util";
import {
  createCodec,
  createMemoryTransport,
  defineService,
  type MessageCodec,
  messageType,
  unary,
} from "../src/index.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "3" },
    "in-flight": { type: "string", default: "64" },
    bytes: { type: "string", default: "64" },
    heap: { type: "boolean", default: false },
  },
});
const seconds = Number(values.seconds);
const inFlight = Number(values["in-flight"]);

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
const Bytes = messageType<Uint8Array>("bench.Bytes");
const codec = createCodec("bytes", { [Bytes.name]: passThrough as MessageCodec<unknown> });
const Echo = defineService("bench.Echo", { echo: unary(Bytes, Bytes) });

const transport = createMemoryTransport();
const server = transport.createServer().addService(Echo, { echo: (b) => b }, { codec });
await server.listen();
const conn = await transport.connect();
const client = conn.client(Echo, { codec });
const payload = new Uint8Array(Number(values.bytes));

async function run(ms: number): Promise<{ calls: number; ms: number }> {
  let calls = 0;
  let stop = false;
  const timer = setTimeout(() => {
    stop = true;
  }, ms);
  const lane = async () => {
    while (!stop) {
      await client.echo(payload);
      calls++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, lane));
  clearTimeout(timer);
  return { calls, ms: performance.now() - t0 };
}

await run(1000); // warm-up: V8 optimises by call counts
let session: inspector.Session | undefined;
if (values.heap) {
  session = new inspector.Session();
  session.connect();
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 512,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
}
const { calls, ms } = await run(seconds * 1000);
console.log(
  `${(calls / (ms / 1000) / 1000).toFixed(0)} k calls/s (${calls} calls, ${inFlight} in flight, ${payload.byteLength} B, ${(ms / 1000).toFixed(1)} s)`,
);
if (session !== undefined) {
  const { profile } = await session.post("HeapProfiler.stopSampling");
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: inspector.HeapProfiler.SamplingHeapProfileNode): void => {
    const f = node.callFrame;
    const bytes = node.selfSize;
    if (bytes > 0) {
      const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`;
      bySite.set(key, (bySite.get(key) ?? 0) + bytes);
      total += bytes;
    }
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  console.log(`${(total / calls).toFixed(0)} B allocated per call (client and server), by site:`);
  for (const [key, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 12))
    console.log(`${(bytes / calls).toFixed(0).padStart(6)} B  ${key}`);
}
await conn.close();
await server.close();
