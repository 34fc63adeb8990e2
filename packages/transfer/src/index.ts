export type {
  TransferClient,
  TransferClientOptions,
} from "./client/client.js";
export { createTransferClient } from "./client/client.js";
export type {
  DownloadDestination,
  TransferCallOptions,
  TransferProgress,
  TransferResult,
  UploadSource,
} from "./client/options.js";
export { createTransferFlatbuffersCodec, transferFlatbuffersTables } from "./codecs/flatbuffers.js";
export type { TransferCodecName } from "./codecs/names.js";
export { TRANSFER_CODEC_NAMES } from "./codecs/names.js";
export { transferRawCodec } from "./codecs/raw.js";
export { TRANSFER_PROTO_URL, transferCodec } from "./codecs/table.js";
export {
  DEFAULT_CHUNK_BYTES,
  DEFAULT_MAX_CHUNK_BYTES,
  DEFAULT_SYNC_EVERY_BYTES,
  DOWNLOAD_PART_SUFFIX,
  MAX_NAME_BYTES,
  STAGING_DIR_NAME,
} from "./limits.js";
export { checkName } from "./name.js";
export { createTransferHandlers } from "./server/handlers.js";
export type { TransferHandlersOptions } from "./server/served-root.js";
export type {
  DownloadChunk,
  DownloadRequest,
  StatusReply,
  StatusRequest,
  TransferServiceDefinition,
  UploadChunk,
  UploadReply,
} from "./service.js";
export { TransferService, transferMessages } from "./service.js";
