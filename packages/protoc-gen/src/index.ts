export type { GeneratedFile } from "./code-generator.js";
export { generateFromRequest, runPlugin } from "./code-generator.js";
export { GENERATOR, generateTs, outputName } from "./generate-ts.js";
export type { GenerateFromProtoOptions } from "./proto-files.js";
export { generateFromProtoFiles } from "./proto-files.js";
export type { GenerateTarget } from "./schema-closure.js";
