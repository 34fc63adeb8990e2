import type { RpcOptions, Transport } from "@nearwire/core";
import { createRpcTransport } from "@nearwire/core";
import { DEFAULT_RING_BYTES, maxMessageBytesFor } from "@nearwire/ring";
import type { WorkerChannelOptions } from "./worker-options.js";
import { createWorkerChannelProvider } from "./worker-provider.js";

/** Options of {@link createWorkerTransport}: the channel options plus the RPC engine's. */
export type WorkerTransportOptions = WorkerChannelOptions & RpcOptions;

/**
 * The worker {@link Transport} (name `worker`): core's RPC engine over
 * {@link createWorkerChannelProvider}. `createServer().listen()` serves the thread behind
 * `port`; `connect()` calls it. `maxMessageBytes` defaults to `maxMessageBytesFor(ringBytes)`
 * of `@nearwire/ring` (2 MiB − 64 KiB − 16 B with the default 4 MiB rings).
 */
export function createWorkerTransport(options: WorkerTransportOptions): Transport {
  const provider = createWorkerChannelProvider(options);
  const maxMessageBytes =
    options.maxMessageBytes ?? maxMessageBytesFor(options.ringBytes ?? DEFAULT_RING_BYTES);
  return createRpcTransport(provider, { ...options, maxMessageBytes });
}
