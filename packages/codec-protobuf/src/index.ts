export type {
  ProtoLoadOptions,
  ProtoMethod,
  ProtoService,
  ProtoServices,
} from "./proto-services.js";
export { loadProtoFiles, loadServices, servicesFromProto } from "./proto-services.js";
export type { ProtobufCodecOptions, ProtobufStaticType } from "./protobuf-codec.js";
export { createProtobufCodec } from "./protobuf-codec.js";
