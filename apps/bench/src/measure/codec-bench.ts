import { seededBytes } from "@nearwire/conformance/seeded";
import { Bench } from "tinybench";
import type { MessageName } from "./case-spec.js";
import type { BenchMessages } from "./plugins.js";

/** Encode/decode speed and size of one codec × message. */
export interface CodecResult {
  codec: string;
  message: MessageName;
  /** Encoded size in bytes. */
  encodedBytes: number;
  /** Median encode rate, ops/s (tinybench samples of `batch` calls each). */
  encodeOpsPerSec: number;
  /**
   * Median rate of encoding into a reused destination (`encodeIntoRange`, else `encodeInto`: the
   * path the RPC engine takes when the transport lends its send buffer), ops/s; absent when the
   * codec has neither (json).
   */
  encodeInPlaceOpsPerSec?: number;
  /** Median decode rate, ops/s. */
  decodeOpsPerSec: number;
  /** Relative margin of error of the encode / decode sample means, in %. */
  encodeRme: number;
  decodeRme: number;
  /** Calls per tinybench sample (so one sample lasts ≳ 20 µs, well above the timer's resolution). */
  batch: number;
  /** tinybench samples taken for encode / decode. */
  encodeSamples: number;
  decodeSamples: number;
}

/** Bytes of data in the Chunk used by the codec benchmark. */
export const CODEC_CHUNK_BYTES = 64 * 1024;

// Results land here so the optimiser cannot drop the calls (read back into the result below).
let sinkValue: unknown;
let sinkBytes = 0;

/** Picks the number of calls per sample so a sample lasts about `targetNs`. */
function batchSize(op: () => void, targetNs: number): number {
  for (let i = 0; i < 20; i++) op();
  let n = 0;
  const t0 = process.hrtime.bigint();
  let t = t0;
  while (n < 100_000 && t - t0 < 2_000_000n) {
    op();
    n++;
    t = process.hrtime.bigint();
  }
  const perOp = Number(t - t0) / n;
  return Math.max(1, Math.min(100_000, Math.ceil(targetNs / perOp)));
}

/** Runs encode and decode of every message for one codec (call in a process of its own). */
export async function benchCodec(
  messages: BenchMessages,
  codecName: string,
  names: readonly MessageName[],
  timeMs: number,
  seed: number,
): Promise<CodecResult[]> {
  const codec = messages.codecs.find((c) => c.name === codecName);
  if (codec === undefined) throw new Error(`codec ${codecName} not available`);
  const out: CodecResult[] = [];
  for (const name of names) {
    let value: unknown;
    if (name === "chunk") {
      const chunk = messages.makeChunk(CODEC_CHUNK_BYTES, 1) as { data?: Uint8Array };
      if (chunk.data instanceof Uint8Array) chunk.data.set(seededBytes(seed, CODEC_CHUNK_BYTES));
      value = chunk;
    } else value = messages.samples[name];
    const mc = codec.forType(messages.messageTypes[name]);
    const bytes = mc.encode(value);
    const encodeOnce = () => {
      sinkBytes ^= mc.encode(value).byteLength;
    };
    const decodeOnce = () => {
      sinkValue = mc.decode(bytes);
    };
    // The destination has room to spare, as a transport's send slot does.
    const dest = new Uint8Array(bytes.byteLength + 4096);
    const inPlace = mc.encodeIntoRange
      ? () => {
          sinkBytes ^= (mc.encodeIntoRange as NonNullable<typeof mc.encodeIntoRange>)(
            value,
            dest,
            16,
            dest.byteLength,
          );
        }
      : mc.encodeInto
        ? () => {
            sinkBytes ^= (mc.encodeInto as NonNullable<typeof mc.encodeInto>)(value, dest, 16);
          }
        : undefined;
    if (inPlace) {
      // What is timed must be the same encoding: the bytes written in place equal encode's.
      sinkBytes = 0;
      inPlace();
      const written = dest.subarray(16, 16 + sinkBytes);
      if (Buffer.compare(written, bytes) !== 0)
        throw new Error(`${codecName}/${name}: encoding in place differs from encode`);
    }
    const batch = Math.min(batchSize(encodeOnce, 20_000), batchSize(decodeOnce, 20_000));
    const inPlaceBatch = inPlace ? batchSize(inPlace, 20_000) : 0;
    const bench = new Bench({
      time: timeMs,
      warmupTime: Math.max(20, timeMs / 2),
      iterations: 16,
      throws: true,
    });
    bench.add("encode", () => {
      for (let i = 0; i < batch; i++) encodeOnce();
    });
    bench.add("decode", () => {
      for (let i = 0; i < batch; i++) decodeOnce();
    });
    if (inPlace) {
      bench.add("encode in place", () => {
        for (let i = 0; i < inPlaceBatch; i++) inPlace();
      });
    }
    await bench.run();
    const [enc, dec, inPlaceResult] = bench.tasks.map((t) => t.result);
    if (enc?.state !== "completed" || dec?.state !== "completed")
      throw new Error(`${codecName}/${name}: tinybench did not complete`);
    out.push({
      codec: codecName,
      message: name,
      encodedBytes: bytes.byteLength,
      encodeOpsPerSec: (batch * 1000) / enc.latency.p50,
      ...(inPlaceResult?.state === "completed" && inPlace
        ? { encodeInPlaceOpsPerSec: (inPlaceBatch * 1000) / inPlaceResult.latency.p50 }
        : {}),
      decodeOpsPerSec: (batch * 1000) / dec.latency.p50,
      encodeRme: enc.latency.rme,
      decodeRme: dec.latency.rme,
      batch,
      encodeSamples: enc.latency.samplesCount,
      decodeSamples: dec.latency.samplesCount,
    });
  }
  return out;
}

/** What the benchmark loops stored; reading it keeps their results observable. */
export function codecSink(): { value: unknown; bytes: number } {
  return { value: sinkValue, bytes: sinkBytes };
}
