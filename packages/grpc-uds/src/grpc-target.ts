/** grpcTarget: the target string a gRPC client resolves for a nearwire address. */
import type { SocketAddress } from "@nearwire/socket";

/**
 * The target string grpc-js (or any gRPC client) resolves for a parsed address: `unix:` with
 * the path; `unix:` with a leading NUL for an abstract name (Node connects to an abstract
 * socket when the path starts with NUL; grpc-js only); `host:port` for TCP, an IPv6 host in
 * brackets.
 */
export function grpcTarget(address: SocketAddress): string {
  switch (address.kind) {
    case "path":
      return `unix:${address.path}`;
    case "abstract":
      return `unix:\0${address.name}`;
    case "tcp":
      return `${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}`;
  }
}
