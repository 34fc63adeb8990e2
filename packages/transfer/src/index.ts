export type {
  DownloadDestination,
  TransferCallOptions,
  TransferClient,
  TransferClientOptions,
  TransferProgress,
  TransferResult,
  UploadSource,
} from "./client/client.js";
export { createTransferClient, DOWNLOAD_PART_SUFFIX } from "./client/client.js";
export {
  createTransferFlatbuffersCodec,
  transferFlatbuffersTables,
} from "./codecs/flatbuffers.js";
export { transferRawCodec } from "./codecs/raw.js";
export type { TransferCodecName } from "./codecs/table.js";
export { TRANSFER_PROTO_URL, transferCodec } from "./codecs/table.js";
export { checkName, MAX_NAME_BYTES, STAGING_DIR_NAME } from "./name.js";
export type { TransferHandlersOptions } from "./server/handlers.js";
export {
  createTransferHandlers,
  DEFAULT_CHUNK_BYTES,
  DEFAULT_MAX_CHUNK_BYTES,
  DEFAULT_SYNC_EVERY_BYTES,
} from "./server/handlers.js";
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
