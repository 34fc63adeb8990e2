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

/**
 * Feature bit of the preface (PROTOCOL.md §4.1, §5.4): the side that announces it returns stream
 * credit by bytes too — on every call, CREDIT for the messages it has consumed at the latest once
 * they total {@link CREDIT_GRANT_BYTES} — so its peer may hold a stream's unacknowledged bytes to
 * {@link SEND_WINDOW_BYTES} without waiting forever (a blocked sender has at least that much
 * unacknowledged, and once the receiver consumed it, it grants).
 */
export const FEATURE_CREDIT_BYTES = 0x2;

/**
 * A receiver that announced {@link FEATURE_CREDIT_BYTES} returns credit at the latest once the
 * messages it consumed since its last CREDIT total this many bytes (1 MiB). Windows of small
 * messages (at most 1 MiB of them, half consumed at a grant) and of 64 KiB ones (16 consumed)
 * keep their cadence; 1 MiB messages get credit back one by one.
 */
export const CREDIT_GRANT_BYTES = 1024 * 1024;

/**
 * A sender whose peer announced {@link FEATURE_CREDIT_BYTES} stops sending on a call while the
 * messages it sent there and got no credit back for total this many bytes (2 MiB, twice
 * {@link CREDIT_GRANT_BYTES}: the peer's grant comes while the next message is on the way):
 * with 1 MiB messages a stream holds two or three of them on the way, not the 32 of the
 * initial credit; 64 KiB messages are held by their 32 credits first, as before.
 */
export const SEND_WINDOW_BYTES = 2 * 1024 * 1024;

/**
 * Feature bit of the preface (PROTOCOL.md §4.1, §5.4), with {@link FEATURE_CREDIT_BYTES}: the
 * side that announces it gives its own byte window W in the HELLO (bytes 24–27). It returns
 * credit on every call once the messages it consumed since its last CREDIT total W ÷ 2, and its
 * peer holds a stream's unacknowledged bytes to W instead of {@link SEND_WINDOW_BYTES}: a
 * receiver of many large streams at once bounds what is on the way to it (10 streams × W).
 */
export const FEATURE_CREDIT_WINDOW = 0x4;

/** Smallest byte window a HELLO's W is read as (64 KiB); a smaller W counts as this. */
export const MIN_CREDIT_WINDOW_BYTES = 64 * 1024;

/**
 * The byte window an announced W stands for: W clamped to {@link MIN_CREDIT_WINDOW_BYTES} …
 * {@link SEND_WINDOW_BYTES}. Both sides use this value, so a W outside the range is safe: a
 * receiver that announced a smaller one grants at least as often as its peer waits for, and
 * above 2 MiB the promise of {@link FEATURE_CREDIT_BYTES} (credit by 1 MiB) still holds.
 */
export function creditWindowBytes(announced: number): number {
  return Math.min(SEND_WINDOW_BYTES, Math.max(MIN_CREDIT_WINDOW_BYTES, announced));
}

/**
 * The byte window a preface announces, as both sides read it ({@link creditWindowBytes}), or
 * undefined: only with {@link FEATURE_CREDIT_BYTES} and {@link FEATURE_CREDIT_WINDOW} in
 * `features` and a window sent beside them (HELLO bytes 24–27, the shm-ring handshake's key).
 */
export function announcedCreditWindow(
  features: number | undefined,
  announced: number | undefined,
): number | undefined {
  const bits = features ?? 0;
  if (announced === undefined || (bits & FEATURE_CREDIT_BYTES) === 0) return undefined;
  return (bits & FEATURE_CREDIT_WINDOW) === 0 ? undefined : creditWindowBytes(announced);
}

/**
 * The feature bits the RPC engine's side of a preface announces: credit by bytes always, BATCH
 * when `batches`, its own byte window when `window`.
 */
export function rpcFeatures(batches: boolean, window: boolean): number {
  return (
    (batches ? FEATURE_BATCH : 0) | FEATURE_CREDIT_BYTES | (window ? FEATURE_CREDIT_WINDOW : 0)
  );
}

/** One of the {@link FrameType} values. */
export type FrameTypeValue = (typeof FrameType)[keyof typeof FrameType];
