/**
 * `@nearwire/core/protocol`: the wire format's pieces below the RPC API (PROTOCOL.md §3, §5),
 * for tests, protocol tools and implementations of other transports — not needed to write or
 * call a service. Every export is listed by name; the engine's own helpers in the envelope
 * module (offsets, in-place readers and writers, byte helpers) are internal and not published.
 *
 * - `FrameType` / `FrameTypeValue`: the frame type values (connection control, RPC, application).
 * - `FEATURE_BATCH`: the preface's feature bit for BATCH frames; `FEATURE_CREDIT_BYTES` the one
 *   for credit by bytes, with `CREDIT_GRANT_BYTES` and `SEND_WINDOW_BYTES`;
 *   `FEATURE_CREDIT_WINDOW` the one for a receiver's own byte window, with
 *   `MIN_CREDIT_WINDOW_BYTES`, `creditWindowBytes` (the window an announced value stands for) and
 *   `announcedCreditWindow` (the window a preface announces, if any); `rpcFeatures`: the bits
 *   the RPC engine's side of a preface announces.
 * - `ENVELOPE_HEADROOM_BYTES`: the most envelope bytes a MESSAGE or REQUEST adds to a message.
 * - The RPC frame payloads (REQUEST … HEADERS): `encodeRequest` / `decodeRequest` (into a
 *   `RequestHead`, reusable), `encodeStatus` / `decodeStatus` (`StatusFrame`), `encodeCallId`
 *   (END) / `readCallId`, `encodeCancel` / `decodeCancel`, `encodeCredit` / `decodeCredit`,
 *   `encodeHeaders` / `decodeHeaders`.
 * - Their constants: the `FLAG_*` bits, `REQUEST_HEAD_BYTES`, `INITIAL_CREDIT` (§5.4), and the
 *   trailer names `REASON_TRAILER` and `CODEC_TRAILER` (§5.6).
 */
export type { FrameTypeValue } from "./frame-type.js";
export {
  announcedCreditWindow,
  CREDIT_GRANT_BYTES,
  creditWindowBytes,
  FEATURE_BATCH,
  FEATURE_CREDIT_BYTES,
  FEATURE_CREDIT_WINDOW,
  FrameType,
  MIN_CREDIT_WINDOW_BYTES,
  rpcFeatures,
  SEND_WINDOW_BYTES,
} from "./frame-type.js";
export type { StatusFrame } from "./rpc/envelope.js";
export {
  CODEC_TRAILER,
  decodeCancel,
  decodeCredit,
  decodeHeaders,
  decodeRequest,
  decodeStatus,
  encodeCallId,
  encodeCancel,
  encodeCredit,
  encodeHeaders,
  encodeRequest,
  encodeStatus,
  FLAG_END_STREAM,
  FLAG_HAS_MESSAGE,
  FLAG_HAS_METADATA,
  FLAG_TAKES_HEADERS,
  INITIAL_CREDIT,
  REASON_TRAILER,
  REQUEST_HEAD_BYTES,
  RequestHead,
  readCallId,
} from "./rpc/envelope.js";
export { ENVELOPE_HEADROOM_BYTES } from "./rpc/rpc-server.js";
