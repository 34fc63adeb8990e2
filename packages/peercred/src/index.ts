import { type NativeAddon, native } from "./native.js";

export type { NativeAddon, PeerCredentials } from "./native.js";

/**
 * `SO_PEERCRED` of the connected Unix socket `fd`: the peer's uid, gid and pid at connect time.
 * Throws an Error with the errno name as `code` (`ENOTSOCK` for a TCP or non-socket fd).
 * Importing this package throws FAILED_PRECONDITION reason `not-built` when the addon is missing.
 */
export const peerCredentials: NativeAddon["peerCredentials"] = native.peerCredentials;
