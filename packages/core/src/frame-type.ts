/**
 * Frame type values of frame v1 (see PROTOCOL.md at the repository root).
 *
 * - 0x01–0x0F: connection control, handled by the channel itself.
 * - 0x10–0x7F: the RPC engine.
 * - 0x80–0xFF: application frames of the channel layer.
 */
export const FrameType = {
  /** Connection preface: magic, version, limits. First frame in each direction. */
  Hello: 0x01,
  /** The sender is closing the connection: status code and reason. Last frame it sends. */
  GoAway: 0x02,
  /** Starts a call: call id, flags, timeout, method, metadata, optional first message. */
  Request: 0x10,
  /** One message of a call, either direction. */
  Message: 0x11,
  /** The sender has no more messages for this call (half-close). */
  End: 0x12,
  /** Ends a call, server to client: status code, message, trailers, optional last message. */
  Status: 0x13,
  /** The client abandons a call: a status code (CANCELLED or DEADLINE_EXCEEDED). */
  Cancel: 0x14,
  /** The receiver grants the sender more messages on a call. */
  Credit: 0x15,
  /**
   * Several messages of one call, either direction; sent only to a peer that announced it takes
   * them (HELLO features, PROTOCOL.md §4.1).
   */
  Batch: 0x16,
  /**
   * Response headers of one call, server to client, before its first message or its STATUS;
   * sent only on a call whose REQUEST set TAKES_HEADERS (PROTOCOL.md §5.2).
   */
  Headers: 0x17,
  /** First type value free for applications using the channel layer directly. */
  FirstApplication: 0x80,
} as const;

/**
 * Feature bit of the preface (HELLO's features field, the shm-ring handshake's `features` key:
 * PROTOCOL.md §4.1, §6.1): the side that announces it takes BATCH frames.
 */
export const FEATURE_BATCH = 0x1;

/** One of the {@link FrameType} values. */
export type FrameTypeValue = (typeof FrameType)[keyof typeof FrameType];
