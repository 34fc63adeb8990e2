/** Metadata and HandlerContext: what a call carries and what a handler learns about it. */
import type { Peer } from "./peer.js";

/** Metadata: ASCII keys (lower-case by convention) to string values; headers or trailers. */
export type Metadata = Record<string, string>;

/** What a handler learns about its call. */
export interface HandlerContext {
  /** `/package.Service/Method`. */
  readonly method: string;
  /** Request metadata. */
  readonly metadata: Metadata;
  /** Absolute deadline (`Date.now()` scale, ms), or undefined. */
  readonly deadline: number | undefined;
  /** Aborted when the client cancels, the deadline passes, or the connection dies. */
  readonly signal: AbortSignal;
  /** Trailers sent with the status; handlers may add entries. */
  readonly trailers: Metadata;
  /**
   * Response headers; handlers may add entries until the first response message (or the
   * status) is sent, after which changes are not sent. The client reads them with
   * `CallOptions.onHeader`.
   */
  readonly responseHeaders: Metadata;
  /** The connection's peer (one object per connection): its address, and uid/gid/pid when known. */
  readonly peer: Peer;
}
