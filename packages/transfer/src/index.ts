// The errors every call can reject with: one class, the gRPC code set (see the README).
export { Code, NearwireError } from "@nearwire/core";
export {
  createTransferClient,
  type TransferClient,
  type TransferClientOptions,
} from "./client/client.js";
export type {
  DownloadDestination,
  TransferCallOptions,
  TransferProgress,
  TransferResult,
  UploadSource,
} from "./client/options.js";
export { loadTransferCodec } from "./codecs/load.js";
export type { TransferCodecName } from "./codecs/names.js";
export { TRANSFER_CODEC_NAMES } from "./codecs/names.js";
export { DOWNLOAD_PART_SUFFIX } from "./limits.js";
export { createTransferHandlers } from "./server/handlers.js";
export type { Durability, TransferHandlersOptions } from "./server/served-root.js";
export { DURABILITY_MODES } from "./server/served-root.js";
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
