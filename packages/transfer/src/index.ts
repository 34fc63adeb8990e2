export type {
  DownloadDestination,
  TransferCallOptions,
  TransferClient,
  TransferClientOptions,
  TransferProgress,
  TransferResult,
  UploadSource,
} from "./transfer-client.js";
export { createTransferClient, DOWNLOAD_PART_SUFFIX } from "./transfer-client.js";
export type { TransferCodecName } from "./transfer-codecs.js";
export { TRANSFER_PROTO_URL, transferCodec } from "./transfer-codecs.js";
export {
  createTransferFlatbuffersCodec,
  transferFlatbuffersTables,
} from "./transfer-flatbuffers-codec.js";
export type { TransferHandlersOptions } from "./transfer-handlers.js";
export {
  createTransferHandlers,
  DEFAULT_CHUNK_BYTES,
  DEFAULT_MAX_CHUNK_BYTES,
  DEFAULT_SYNC_EVERY_BYTES,
} from "./transfer-handlers.js";
export { checkName, MAX_NAME_BYTES, STAGING_DIR_NAME } from "./transfer-name.js";
export { transferRawCodec } from "./transfer-raw-codec.js";
export type {
  DownloadChunk,
  DownloadRequest,
  StatusReply,
  StatusRequest,
  TransferServiceDefinition,
  UploadChunk,
  UploadReply,
} from "./transfer-service.js";
export { TransferService, transferMessages } from "./transfer-service.js";
