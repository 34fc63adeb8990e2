export { benchCodecs, benchProtobufTypes } from "./bench-codecs.js";
export { canonical } from "./canonical.js";
export { benchFlatbuffersTables } from "./flatbuffers-tables.js";
export type { Chunk, Metric, Request, Tick } from "./messages.js";
export { ChunkType, MetricType, RequestType, TickType } from "./messages.js";
export { rawCodec } from "./raw-codec.js";
export { makeChunk, sampleMessages } from "./samples.js";
