/** The bench messages bound to each codec (json, msgpack, protobuf, flatbuffers, raw), by name. */
import { createFlatbuffersCodec } from "@nearwire/codec-flatbuffers";
import { createMsgpackCodec } from "@nearwire/codec-msgpack";
import type { ProtobufStaticType } from "@nearwire/codec-protobuf";
import { createProtobufCodec } from "@nearwire/codec-protobuf";
import type { Codec } from "@nearwire/core";
import { jsonCodec } from "@nearwire/core";
import { benchFlatbuffersTables } from "./flatbuffers-tables.js";
import { nearwire } from "./generated/bench-pb.js";
import { rawCodec } from "./raw-codec.js";

/** The static protobufjs classes of schema/bench.proto, keyed by full message name. */
export const benchProtobufTypes: Record<string, ProtobufStaticType> = {
  "nearwire.bench.Tick": nearwire.bench.Tick,
  "nearwire.bench.Request": nearwire.bench.Request,
  "nearwire.bench.Metric": nearwire.bench.Metric,
  "nearwire.bench.Chunk": nearwire.bench.Chunk,
};

/**
 * One {@link Codec} per serialization family, each knowing Tick, Request, Metric and Chunk:
 * `json` (core), `msgpack`, `protobuf` (static classes generated from schema/bench.proto),
 * `flatbuffers` (flatc tables from schema/bench.fbs) and `raw` (hand-written DataView layouts).
 * Each holds one reused encoder state: share it within one thread, not across workers.
 */
export const benchCodecs: {
  readonly json: Codec;
  readonly msgpack: Codec;
  readonly protobuf: Codec;
  readonly flatbuffers: Codec;
  readonly raw: Codec;
} = {
  json: jsonCodec,
  msgpack: createMsgpackCodec(),
  protobuf: createProtobufCodec(benchProtobufTypes),
  flatbuffers: createFlatbuffersCodec(benchFlatbuffersTables),
  raw: rawCodec,
};
