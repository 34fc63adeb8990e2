import { Code, NearwireError } from "@nearwire/core";

/** The codecs of the transfer service, by name; client and server must use the same one. */
export const TRANSFER_CODEC_NAMES = ["json", "msgpack", "protobuf", "flatbuffers", "raw"] as const;

/** Names of the codecs `transferCodec` and `loadTransferCodec` make. */
export type TransferCodecName = (typeof TRANSFER_CODEC_NAMES)[number];

/** `name` as a {@link TransferCodecName}; anything else is INVALID_ARGUMENT. */
export function checkCodecName(name: string): TransferCodecName {
  if ((TRANSFER_CODEC_NAMES as readonly string[]).includes(name)) return name as TransferCodecName;
  throw new NearwireError(
    Code.InvalidArgument,
    `codec "${name}" is not one of ${TRANSFER_CODEC_NAMES.join(", ")}`,
  );
}
