/** Sizes and names that the client and the server both depend on. */

/** Default bytes per chunk (uploads and downloads). */
export const DEFAULT_CHUNK_BYTES = 64 * 1024;

/** Default largest chunk the server accepts (the RPC default message limit less headroom). */
export const DEFAULT_MAX_CHUNK_BYTES = 4 * 1024 * 1024 - 64 * 1024;

/**
 * Default `resumeFromBytes` of the client: an upload smaller than 4 MiB starts at once, without
 * a status call to look for a partial upload to resume.
 */
export const DEFAULT_RESUME_FROM_BYTES = 4 * 1024 * 1024;

/** Default checkpoint interval of a partial upload (fdatasync + confirmed offset). */
export const DEFAULT_SYNC_EVERY_BYTES = 8 * 1024 * 1024;

/** Longest name accepted, in UTF-8 bytes. */
export const MAX_NAME_BYTES = 1024;

/** The directory under `root` where partial uploads live; no name may start with it. */
export const STAGING_DIR_NAME = ".nearwire-transfer";

/** Suffix of a download's partial file next to its destination. */
export const DOWNLOAD_PART_SUFFIX = ".nearwire-part";
