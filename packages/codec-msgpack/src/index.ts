export type { MsgpackCodecOptions } from "./msgpack-codec.js";
export { createMsgpackCodec } from "./msgpack-codec.js";
