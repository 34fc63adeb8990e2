import { createMsgpackCodec } from "@nearwire/codec-msgpack";
import { createProtobufCodec } from "@nearwire/codec-protobuf";
import type { Codec } from "@nearwire/core";
import { jsonCodec } from "@nearwire/core";
import protobuf from "protobufjs";
import { createTransferFlatbuffersCodec } from "./flatbuffers.js";
import { checkCodecName } from "./names.js";
import { transferRawCodec } from "./raw.js";

/** The protobuf schema of the transfer messages (`schema/transfer.proto`, shipped with the package). */
export const TRANSFER_PROTO_URL: URL = new URL("../../schema/transfer.proto", import.meta.url);

/**
 * A codec for the transfer service by name: `json` (core; bytes as base64, so chunks grow by a
 * third), `msgpack`, `protobuf` (reflection over schema/transfer.proto), `flatbuffers`
 * (schema/transfer.fbs) or `raw` (hand-written little-endian layouts, see `codecs/raw.ts`).
 * Client and server must use the same one. Unknown names are INVALID_ARGUMENT.
 */
export function transferCodec(name: string): Codec {
  switch (checkCodecName(name)) {
    case "json":
      return jsonCodec;
    case "msgpack":
      return createMsgpackCodec();
    case "protobuf":
      return createProtobufCodec(protobuf.loadSync(TRANSFER_PROTO_URL.pathname));
    case "flatbuffers":
      return createTransferFlatbuffersCodec();
    case "raw":
      return transferRawCodec;
  }
}
