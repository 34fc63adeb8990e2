/**
 * `@nearwire/core/protocol`: the wire format's pieces below the RPC API (PROTOCOL.md §3, §5),
 * for tests, protocol tools and implementations of other transports — not needed to write or
 * call a service.
 *
 * - `FrameType` / `FrameTypeValue`: the frame type values (connection control, RPC, application).
 * - `FEATURE_BATCH`: the preface's feature bit for BATCH frames.
 * - `envelope`: encoders and decoders of the RPC frame payloads (REQUEST … CREDIT).
 * - `ENVELOPE_HEADROOM_BYTES`: the most envelope bytes a MESSAGE or REQUEST adds to a message.
 */
export type { FrameTypeValue } from "./frame-type.js";
export { FEATURE_BATCH, FrameType } from "./frame-type.js";
export * as envelope from "./rpc/envelope.js";
export { ENVELOPE_HEADROOM_BYTES } from "./rpc/rpc-server.js";
