import type { Codec } from "@nearwire/core";
import { checkCodecName } from "./names.js";

/**
 * The codec `name` of the transfer service, like `transferCodec` of
 * `@nearwire/transfer/codecs`, but the codec packages (msgpack, protobufjs, flatbuffers) are
 * imported on the first call instead of with the package. Unknown names are INVALID_ARGUMENT.
 */
export async function loadTransferCodec(name: string): Promise<Codec> {
  checkCodecName(name);
  const { transferCodec } = await import("./table.js");
  return transferCodec(name);
}
