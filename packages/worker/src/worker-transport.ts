import type { RpcOptions, Transport } from "@nearwire/core";
import { createRpcTransport } from "@nearwire/core";
import { maxFrameBytesFor } from "@nearwire/ring";
import type { WorkerChannelOptions } from "./worker-options.js";
import { createWorkerChannelProvider } from "./worker-provider.js";

/** Options of {@link createWorkerTransport}: the channel options plus the RPC engine's. */
export type WorkerTransportOptions = WorkerChannelOptions & RpcOptions;

/**
 * The worker {@link Transport} (name `worker`): core's RPC engine over
 * {@link createWorkerChannelProvider}. `createServer().listen()` serves the thread behind
 * `port`; `connect()` calls it. `maxMessageBytes` defaults to core's 4 MiB, as on every
 * transport, whatever the ring size (frames larger than one record travel in fragments);
 * `maxFrameBytes` defaults to `maxMessageBytes` + 64 KiB.
 */
export function createWorkerTransport(options: WorkerTransportOptions): Transport {
  const provider = createWorkerChannelProvider({
    ...options,
    maxFrameBytes: options.maxFrameBytes ?? maxFrameBytesFor(options.maxMessageBytes),
    batches: options.batches ?? true,
  });
  return createRpcTransport(provider, options);
}
