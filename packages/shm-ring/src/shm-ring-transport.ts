import type { RpcOptions, Transport } from "@nearwire/core";
import {
  createRpcTransport,
  DEFAULT_MAX_MESSAGE_BYTES,
  ENVELOPE_HEADROOM_BYTES,
} from "@nearwire/core";
import { guardListen } from "@nearwire/socket";
import { DEFAULT_RING_BYTES, maxPayloadFor } from "./ring-layout.js";
import type { ShmRingOptions } from "./shm-ring-options.js";
import { createShmRingChannelProvider } from "./shm-ring-provider.js";

/** Options of {@link createShmRingTransport}: the ring options plus the RPC engine's. */
export type ShmRingTransportOptions = ShmRingOptions & RpcOptions;

/**
 * The shm-ring {@link Transport} (name `shm-ring`): core's RPC engine over
 * {@link createShmRingChannelProvider}. Handlers see payloads decoded from the ring; the
 * engine copies a payload first only when the codec decodes in place. `maxMessageBytes`
 * defaults to the smaller of 4 MiB and what one ring record holds minus the envelope
 * headroom (with the default 4 MiB rings: 2 MiB − 64 KiB − 16 B).
 */
export function createShmRingTransport(options: ShmRingTransportOptions): Transport {
  const ringLimit =
    maxPayloadFor(options.ringBytes ?? DEFAULT_RING_BYTES) - ENVELOPE_HEADROOM_BYTES;
  const maxMessageBytes = options.maxMessageBytes ?? Math.min(DEFAULT_MAX_MESSAGE_BYTES, ringLimit);
  const transport = createRpcTransport(createShmRingChannelProvider(options), {
    ...options,
    maxMessageBytes,
  });
  // close() during listen() wins: the listen rejects CANCELLED server-closing.
  return { ...transport, createServer: () => guardListen(transport.createServer()) };
}
