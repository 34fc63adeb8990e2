/**
 * `@nearwire/core/transport-kit`: what the nearwire transports are built from, for authors of
 * another transport or channel — not needed to write or call a service.
 *
 * - `RpcServer`: the server side of the RPC engine over a `ChannelProvider` (what
 *   `createRpcTransport` serves with).
 * - `guardListen(server)`: makes `close()` win over a pending `listen()` (every transport uses it).
 * - `serverCloseHook(impl)`: the `onServerClose` method of a service impl, if it has one.
 * - `checkSend(closed, type, payloadBytes, maxPayloadBytes, peer)` / `isSendableType(type)`: the
 *   argument check every `Channel.send` runs (UNAVAILABLE `peer-closed` when closed,
 *   INVALID_ARGUMENT `unknown-frame-type` outside 0x10–0xFF, RESOURCE_EXHAUSTED
 *   `frame-too-large` over `maxPayloadBytes`).
 * - `isErrorReason(value)`: whether a reason read off the wire is one of `ErrorReason`;
 *   `messageOf(thrown)`: the message of anything thrown (an Error's, or its string form).
 * - `bindService`, `bindHandlers`, `BoundMethod`, `ServedMethod`: a service definition bound to a
 *   codec (client side) and to handlers inside the service's interceptors (server side);
 *   `clientMethod(bound, call, interceptors)`: a transport's call of one method as the typed
 *   client's method, inside the interceptors (and the diagnostics events when subscribed).
 * - `timeoutError(timeoutMs)`: the DEADLINE_EXCEEDED error every client gives;
 *   `closedByCaller()`: the CANCELLED `closed` error of a call on a connection its own side closed.
 * - `handlerFailure(error, call, hook)`: what a server sends for a handler's error that is not
 *   a NearwireError, after telling `hook` (`onHandlerError`) of it.
 * - `withServerCodec(error, codec)`: an error STATUS after the server's `nearwire-codec`
 *   trailer (codec mismatch named: reason `codec-mismatch`), as every client reports it.
 * - `memoryChannelPair(options)`: two connected in-process Channels (tests of channel code).
 * - `loadAddon(path, pkg)`: loads a native addon or throws FAILED_PRECONDITION `not-built`.
 * - `InboundStream`: the receiving end of a streamed call as an async iterable, with a callback
 *   per message taken (flow-control credit); `DeadlineTimer`: a call's deadline timer for any
 *   u32 number of ms. grpc-uds builds its calls from both.
 * - `MessagePump`: sends a streamed call's messages from an (async) iterable as promise
 *   callbacks, not a `for await` loop: a source with `[nextNow]()` (core's `nextNow`) gives the
 *   messages it has at hand with no promise at all. Both engines send their streams with it.
 * - `BufferPool`: large receive buffers kept for reuse once given back (a channel's frame
 *   buffers, the engine's copies of ring messages lent by `lendMessages` handlers).
 */
export type { BufferPoolOptions } from "./buffer-pool.js";
export { BufferPool } from "./buffer-pool.js";
export { checkSend, isSendableType } from "./check-send.js";
export { guardListen } from "./guard-listen.js";
export type { ClientMethod } from "./intercept/client-chain.js";
export { clientMethod } from "./intercept/client-chain.js";
export { loadAddon } from "./load-addon.js";
export type { MemoryChannelOptions } from "./memory/memory-channel.js";
export { memoryChannelPair } from "./memory/memory-channel.js";
export { isErrorReason, messageOf } from "./nearwire-error.js";
export type { BoundMethod } from "./rpc/bound-method.js";
export { bindService } from "./rpc/bound-method.js";
export { closedByCaller, timeoutError } from "./rpc/client-session.js";
export { DeadlineTimer } from "./rpc/deadline-timer.js";
export { handlerFailure } from "./rpc/handler-error.js";
export { InboundStream } from "./rpc/inbound-stream.js";
export { messagePool } from "./rpc/message-pool.js";
export type { PumpCredit, PumpSink } from "./rpc/message-pump.js";
export { MessagePump } from "./rpc/message-pump.js";
export { RpcServer } from "./rpc/rpc-server.js";
export type { ServedMethod } from "./rpc/served-method.js";
export { bindHandlers } from "./rpc/served-method.js";
export { withServerCodec } from "./rpc/server-codec.js";
export { serverCloseHook } from "./server-close-hook.js";
