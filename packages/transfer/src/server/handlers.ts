import { lendMessages, type ServiceImpl } from "@nearwire/core";
import type { TransferServiceDefinition } from "../service.js";
import { download } from "./download.js";
import { createServedRoot, type TransferHandlersOptions } from "./served-root.js";
import { status } from "./status.js";
import { upload } from "./upload.js";

/**
 * The handlers of `TransferService` over a root directory: serve them with
 * `server.addService(TransferService, createTransferHandlers({ root }), { codec })`.
 *
 * Uploads are written to `root/.nearwire-transfer/<hash>.part`, checked chunk by chunk
 * (CRC-32C) and as a whole (SHA-256), then fsync'ed and renamed under the final name; one upload
 * per name at a time (another gets ABORTED).
 */
export function createTransferHandlers(
  options: TransferHandlersOptions,
): ServiceImpl<TransferServiceDefinition> {
  const served = createServedRoot(options);
  return {
    status: (req) => status(served, req),
    // upload() is done with a chunk when it asks for the next: its frame can be reused.
    upload: lendMessages((requests) => upload(served, requests)),
    download: (req, ctx) => download(served, req, ctx),
  };
}
