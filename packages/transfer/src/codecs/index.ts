/**
 * `@nearwire/transfer/codecs`: the codec table and the transfer-specific codecs. Importing this
 * loads every codec package; the package root's `loadTransferCodec` loads them on first use.
 */
export { createTransferFlatbuffersCodec, transferFlatbuffersTables } from "./flatbuffers.js";
export { TRANSFER_CODEC_NAMES, type TransferCodecName } from "./names.js";
export { transferRawCodec } from "./raw.js";
export { TRANSFER_PROTO_URL, transferCodec } from "./table.js";
