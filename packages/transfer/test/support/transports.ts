import type { Transport } from "@nearwire/core";
import { createGrpcTransport } from "@nearwire/grpc-uds";
import { createShmRingTransport } from "@nearwire/shm-ring";
import { createUdsTransport } from "@nearwire/uds";

/**
 * The transports the cost tests run a transfer over, each at a Unix socket address (the test
 * process and test/fixtures/counted-server.ts make them from the same names).
 */
export const transports = {
  uds: (address: string): Transport => createUdsTransport({ address }),
  "shm-ring": (address: string): Transport => createShmRingTransport({ address }),
  "grpc-uds": (address: string): Transport => createGrpcTransport({ address }),
} as const;

export type TransportName = keyof typeof transports;
