export type { ProtobufCodecOptions, ProtobufStaticType } from "./protobuf-codec.js";
export { createProtobufCodec } from "./protobuf-codec.js";
