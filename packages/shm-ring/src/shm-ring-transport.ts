import type { RpcOptions, Transport } from "@nearwire/core";
import { createRpcTransport } from "@nearwire/core";
import { DEFAULT_RING_BYTES, maxMessageBytesFor } from "@nearwire/ring";
import type { ShmRingOptions } from "./shm-ring-options.js";
import { createShmRingChannelProvider } from "./shm-ring-provider.js";

/** Options of {@link createShmRingTransport}: the ring options plus the RPC engine's. */
export type ShmRingTransportOptions = ShmRingOptions & RpcOptions;

// Defined with the ring layout (@nearwire/ring), shared with @nearwire/worker; exported here too.
export { envelopeHeadroomFor, maxMessageBytesFor } from "@nearwire/ring";

/**
 * The shm-ring {@link Transport} (name `shm-ring`): core's RPC engine over
 * {@link createShmRingChannelProvider}. Handlers see payloads decoded from the ring; the
 * engine copies a payload first only when the codec decodes in place. `maxMessageBytes`
 * defaults to {@link maxMessageBytesFor} `ringBytes` (with the default 4 MiB rings:
 * 2 MiB − 64 KiB − 16 B). A message over it fails its call with RESOURCE_EXHAUSTED; the
 * connection stays up.
 */
export function createShmRingTransport(options: ShmRingTransportOptions): Transport {
  const provider = createShmRingChannelProvider(options);
  const maxMessageBytes =
    options.maxMessageBytes ?? maxMessageBytesFor(options.ringBytes ?? DEFAULT_RING_BYTES);
  // close() during listen() wins (createRpcTransport's guardListen).
  return createRpcTransport(provider, { ...options, maxMessageBytes });
}
