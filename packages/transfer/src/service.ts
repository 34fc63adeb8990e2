import {
  clientStreaming,
  defineService,
  messageType,
  serverStreaming,
  unary,
} from "@nearwire/core";

/** `status(name)`: what the server has under a name. */
export interface StatusRequest {
  name: string;
}

/** What the server has under a name: a committed file, a partial upload, or neither. */
export interface StatusReply {
  /** A file is committed under the name. */
  committed: boolean;
  /** Size of the committed file, or -1. */
  sizeBytes: number;
  /** Confirmed (durable) bytes of a partial upload, or -1 when there is none. */
  partialBytes: number;
  /** Size the partial upload declared, or -1 when unknown or none. */
  partialSizeBytes: number;
  /** An upload of this name is in progress. */
  active: boolean;
}

/** One message of an upload (a client stream). */
export interface UploadChunk {
  /** The destination name; first message only (empty after). */
  name: string;
  /** Declared size of the whole file; first message only; -1 when unknown. */
  sizeBytes: number;
  /** Where `data` starts in the file. */
  offsetBytes: number;
  data: Uint8Array;
  /** CRC-32C of `data`. */
  crc32c: number;
  /** Verify and commit after this message. */
  last: boolean;
  /** Last message only: SHA-256 of the whole file (empty otherwise). */
  sha256: Uint8Array;
}

/** The server's answer to an upload. */
export interface UploadReply {
  committed: boolean;
  /** The committed size, or the confirmed bytes when the stream ended without `last`. */
  sizeBytes: number;
  /** SHA-256 of the committed file (empty when not committed). */
  sha256: Uint8Array;
}

/** A download request (a server stream answers it). */
export interface DownloadRequest {
  name: string;
  /** Bytes the client already has. */
  offsetBytes: number;
  /** SHA-256 of those bytes; the server starts from 0 when they do not match its file. */
  prefixSha256: Uint8Array;
  /** Bytes per chunk; 0 for the server's default. */
  chunkBytes: number;
}

/** One message of a download. */
export interface DownloadChunk {
  /** Where `data` starts; 0 when the server restarts the file. */
  offsetBytes: number;
  data: Uint8Array;
  /** CRC-32C of `data`. */
  crc32c: number;
  /** Size of the file being sent. */
  sizeBytes: number;
  last: boolean;
  /** Last message only: SHA-256 of the whole file. */
  sha256: Uint8Array;
}

/** Message types of the transfer service; the names are the protobuf full names. */
export const transferMessages = {
  StatusRequest: messageType<StatusRequest>("nearwire.transfer.StatusRequest"),
  StatusReply: messageType<StatusReply>("nearwire.transfer.StatusReply"),
  UploadChunk: messageType<UploadChunk>("nearwire.transfer.UploadChunk"),
  UploadReply: messageType<UploadReply>("nearwire.transfer.UploadReply"),
  DownloadRequest: messageType<DownloadRequest>("nearwire.transfer.DownloadRequest"),
  DownloadChunk: messageType<DownloadChunk>("nearwire.transfer.DownloadChunk"),
} as const;

/**
 * The transfer service: `status` (unary), `upload` (client stream: stream credit is the
 * backpressure from the server's disk to the client's reads) and `download` (server stream).
 */
export const TransferService = defineService("nearwire.transfer.Transfer", {
  status: unary(transferMessages.StatusRequest, transferMessages.StatusReply),
  upload: clientStreaming(transferMessages.UploadChunk, transferMessages.UploadReply),
  download: serverStreaming(transferMessages.DownloadRequest, transferMessages.DownloadChunk),
});

/** The type of {@link TransferService}. */
export type TransferServiceDefinition = typeof TransferService;
