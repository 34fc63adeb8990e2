/**
 * "No measurable overhead" check (not a test): encode+decode through each nearwire codec versus
 * the bare library call, in the same tinybench run, for Tick and Request. Prints ops/s medians
 * and the ratio nearwire/bare (target >= 0.90). Run:
 *   npx -y pnpm@12.4.2 --filter @nearwire/bench-messages bench
 */
import { Decoder, Encoder } from "@msgpack/msgpack";
import { FlatbuffersVerifier } from "@nearwire/codec-flatbuffers";
import type { ProtobufStaticType } from "@nearwire/codec-protobuf";
import type { MessageType } from "@nearwire/core";
import { Builder, ByteBuffer } from "flatbuffers";
import { Bench } from "tinybench";
import { nearwire } from "../src/generated/bench-pb.js";
import {
  benchCodecs,
  benchFlatbuffersTables,
  RequestType,
  sampleMessages,
  TickType,
} from "../src/index.js";

const timeMs = Number(process.env.OVERHEAD_TIME_MS ?? 1000);
const cases: { key: "tick" | "request"; type: MessageType<unknown>; pb: ProtobufStaticType }[] = [
  { key: "tick", type: TickType as MessageType<unknown>, pb: nearwire.bench.Tick },
  { key: "request", type: RequestType as MessageType<unknown>, pb: nearwire.bench.Request },
];

let sink = 0;
const bench = new Bench({ time: timeMs, warmup: true, warmupTime: 200 });
const msgpackEncoder = new Encoder();
const msgpackDecoder = new Decoder();

for (const { key, type, pb } of cases) {
  const value: unknown = sampleMessages[key];
  const msgpack = benchCodecs.msgpack.forType(type);
  const protobuf = benchCodecs.protobuf.forType(type);
  const flatbuffers = benchCodecs.flatbuffers.forType(type);
  const table = benchFlatbuffersTables[type.name];
  if (table === undefined || table.verify === undefined)
    throw new Error(`no table for ${type.name}`);
  const builder = new Builder(1024);

  bench.add(`${key}/msgpack/bare`, () => {
    sink ^= (msgpackDecoder.decode(msgpackEncoder.encode(value)) as object) === null ? 1 : 0;
  });
  bench.add(`${key}/msgpack/nearwire`, () => {
    sink ^= msgpack.decode(msgpack.encode(value)) === null ? 1 : 0;
  });
  bench.add(`${key}/protobuf/bare`, () => {
    sink ^= pb.decode(pb.encode(value).finish()) === null ? 1 : 0;
  });
  bench.add(`${key}/protobuf/nearwire`, () => {
    sink ^= protobuf.decode(protobuf.encode(value)) === null ? 1 : 0;
  });
  // Bare flatbuffers includes the same verifier: an unverified decode is not a fair baseline.
  bench.add(`${key}/flatbuffers/bare`, () => {
    builder.clear();
    builder.finish(table.encode(builder, value));
    const bytes = builder.asUint8Array().slice();
    const v = new FlatbuffersVerifier(bytes);
    table.verify?.(v, v.rootTable());
    sink ^= table.decode(new ByteBuffer(bytes)) === null ? 1 : 0;
  });
  bench.add(`${key}/flatbuffers/nearwire`, () => {
    sink ^= flatbuffers.decode(flatbuffers.encode(value)) === null ? 1 : 0;
  });
}

await bench.run();

const median = (name: string): number => {
  const task = bench.getTask(name);
  const r = task?.result as { throughput?: { p50?: number } } | undefined;
  return r?.throughput?.p50 ?? Number.NaN;
};
console.log(`node ${process.version}, ${timeMs} ms per task, sink ${sink}`);
console.log("case                    bare ops/s   nearwire ops/s   ratio");
for (const { key } of cases) {
  for (const lib of ["msgpack", "protobuf", "flatbuffers"]) {
    const bare = median(`${key}/${lib}/bare`);
    const nw = median(`${key}/${lib}/nearwire`);
    const ratio = nw / bare;
    console.log(
      `${`${key}/${lib}`.padEnd(22)} ${bare.toFixed(0).padStart(11)} ${nw.toFixed(0).padStart(16)}   ${ratio.toFixed(3)}${ratio < 0.9 ? "  BELOW 0.90" : ""}`,
    );
  }
}
