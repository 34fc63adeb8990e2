export type { FlatbuffersCodecOptions, FlatbuffersTable } from "./flatbuffers-codec.js";
export { createFlatbuffersCodec } from "./flatbuffers-codec.js";
export type { FlatbuffersVerifierOptions } from "./flatbuffers-verifier.js";
export { FlatbuffersVerifier } from "./flatbuffers-verifier.js";
