import type { Transport } from "@nearwire/core";
import { createUdsTransport } from "@nearwire/uds";

/** Where the CLI listens and connects when `--address` is not given. */
export const DEFAULT_ADDRESS = "/tmp/nearwire-transfer.sock";

/**
 * The CLI's transport: uds (a socket path, an abstract `@name`, or a tcp address, as
 * `@nearwire/uds` reads it). Only the CLI imports a transport; the library takes a connection.
 */
export function cliTransport(address: string): Transport {
  return createUdsTransport({ address });
}
