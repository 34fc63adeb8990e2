import { resolve } from "node:path";
import { Code, NearwireError } from "@nearwire/core";

/**
 * A parsed grpc-uds address.
 *
 * - `path`: a Unix domain socket file (`unix:/run/x.sock`, `unix:///run/x.sock`, `/run/x.sock`;
 *   a relative `unix:` path is resolved against the working directory).
 * - `abstract`: a Linux abstract socket name (`unix-abstract:name`), no file on disk.
 * - `tcp`: `host:port`, `tcp:host:port`, `[::1]:port`; port 0 binds a free port.
 */
export type GrpcAddress =
  | { readonly kind: "path"; readonly path: string }
  | { readonly kind: "abstract"; readonly name: string }
  | { readonly kind: "tcp"; readonly host: string; readonly port: number };

/**
 * Largest socket path or abstract name, in bytes: `sun_path` is 108 bytes on Linux, one of
 * which holds the terminating NUL (a path) or the leading NUL (an abstract name).
 */
export const MAX_SOCKET_PATH_BYTES = 107;

/**
 * Parses an address string. Throws INVALID_ARGUMENT for a malformed address, and
 * INVALID_ARGUMENT reason `path-too-long` for a path or abstract name over
 * {@link MAX_SOCKET_PATH_BYTES}.
 */
export function parseGrpcAddress(address: string): GrpcAddress {
  if (address.startsWith("unix-abstract:")) {
    const name = address.slice("unix-abstract:".length);
    if (name.length === 0) throw invalid(address, "empty abstract name");
    checkLength(name, "abstract name");
    return { kind: "abstract", name };
  }
  if (address.startsWith("unix:") || address.startsWith("/")) {
    let path = address.startsWith("unix:") ? address.slice("unix:".length) : address;
    if (path.startsWith("//")) path = path.slice(2);
    if (path.length === 0) throw invalid(address, "empty socket path");
    path = resolve(path);
    checkLength(path, "socket path");
    return { kind: "path", path };
  }
  const hostPort = address.startsWith("tcp:") ? address.slice("tcp:".length) : address;
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(hostPort);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (host === undefined || !(port >= 0 && port <= 65535)) {
    throw invalid(address, "expected unix:/path, unix-abstract:name or host:port");
  }
  return { kind: "tcp", host, port };
}

/** The address in canonical form: `unix:/abs/path`, `unix-abstract:name`, `host:port`. */
export function formatGrpcAddress(address: GrpcAddress): string {
  switch (address.kind) {
    case "path":
      return `unix:${address.path}`;
    case "abstract":
      return `unix-abstract:${address.name}`;
    case "tcp":
      return `${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}`;
  }
}

/**
 * The target string grpc-js's client resolves: `unix:` with the path, or with a leading NUL for
 * an abstract name (Node connects to an abstract socket when the path starts with NUL), or
 * `host:port`.
 */
export function grpcTarget(address: GrpcAddress): string {
  switch (address.kind) {
    case "path":
      return `unix:${address.path}`;
    case "abstract":
      return `unix:\0${address.name}`;
    case "tcp":
      return formatGrpcAddress(address);
  }
}

function checkLength(path: string, what: string): void {
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new NearwireError(
      Code.InvalidArgument,
      `${what} ${bytes} B > ${MAX_SOCKET_PATH_BYTES} B: ${path}`,
      { reason: "path-too-long" },
    );
  }
}

function invalid(address: string, why: string): NearwireError {
  return new NearwireError(Code.InvalidArgument, `bad grpc-uds address "${address}": ${why}`);
}
