/**
 * Address forms every nearwire stream transport (uds, grpc-uds, the shm-ring control socket)
 * accepts, and the one canonical string form each parses to:
 *
 * | input | kind | canonical form |
 * | --- | --- | --- |
 * | `/abs/path.sock`, `unix:/abs/path.sock`, `unix:///abs/path.sock` | socket file | `/abs/path.sock` |
 * | `unix:rel/path.sock` | socket file, relative to the working directory | `unix:rel/path.sock` |
 * | `unix-abstract:name`, `@name` | Linux abstract socket (no file) | `unix-abstract:name` |
 * | `tcp:127.0.0.1:7000`, `127.0.0.1:7000`, `tcp:[::1]:7000`, `localhost:7000` | TCP | `tcp:127.0.0.1:7000` |
 */
import { Code, NearwireError } from "@nearwire/core";

/**
 * Longest Unix socket path or abstract name, in bytes: `sun_path` is 108 bytes on Linux, one of
 * which is the terminating NUL (or, for an abstract name, the leading NUL).
 */
export const MAX_SOCKET_PATH_BYTES = 107;

/** A parsed address; `address` is its canonical string form (what a listener reports). */
export type SocketAddress =
  | { readonly kind: "path"; readonly path: string; readonly address: string }
  | { readonly kind: "abstract"; readonly name: string; readonly address: string }
  | {
      readonly kind: "tcp";
      readonly host: string;
      readonly port: number;
      readonly address: string;
    };

/**
 * Parses an address string (forms in the module doc). Throws INVALID_ARGUMENT for anything
 * else, with reason `path-too-long` when a path or abstract name exceeds
 * {@link MAX_SOCKET_PATH_BYTES} bytes. Relative paths need the `unix:` prefix. Every
 * canonical form parses back to itself.
 */
export function parseAddress(address: string): SocketAddress {
  if (address.startsWith("unix:") || address.startsWith("/")) {
    let path = address.startsWith("unix:") ? address.slice("unix:".length) : address;
    if (path.startsWith("//")) {
      // The URI form grpc clients use: unix:///abs/path.
      path = path.slice(2);
      if (!path.startsWith("/")) throw invalid(address, "unix:// must be followed by /abs/path");
    }
    if (path.length === 0) throw invalid(address, "empty path");
    if (path.includes("\0")) throw invalid(address, "NUL byte in path");
    checkLength(path, address);
    return { kind: "path", path, address: path.startsWith("/") ? path : `unix:${path}` };
  }
  if (address.startsWith("unix-abstract:") || address.startsWith("@")) {
    const name = address.startsWith("@")
      ? address.slice(1)
      : address.slice("unix-abstract:".length);
    if (name.length === 0) throw invalid(address, "empty abstract name");
    checkLength(name, address);
    return { kind: "abstract", name, address: `unix-abstract:${name}` };
  }
  const rest = address.startsWith("tcp:") ? address.slice("tcp:".length) : address;
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(rest);
  if (m === null)
    throw invalid(
      address,
      "expected /path, unix:path, unix-abstract:name, @name or [tcp:]host:port",
    );
  const port = Number(m[2]);
  if (port > 65535) throw invalid(address, `port ${port} > 65535`);
  const rawHost = m[1] as string;
  const host = rawHost.startsWith("[") ? rawHost.slice(1, -1) : rawHost;
  return { kind: "tcp", host, port, address: formatTcp(host, port) };
}

/** The canonical TCP form `tcp:host:port`, with an IPv6 host in brackets. */
export function formatTcp(host: string, port: number): string {
  return `tcp:${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The `path` node:net takes for a Unix address (an abstract name gets its leading NUL). */
export function netPath(parsed: SocketAddress): string {
  if (parsed.kind === "path") return parsed.path;
  if (parsed.kind === "abstract") return `\0${parsed.name}`;
  throw new NearwireError(
    Code.InvalidArgument,
    `${parsed.address} is a TCP address, not a Unix socket`,
  );
}

function checkLength(pathOrName: string, address: string): void {
  const bytes = Buffer.byteLength(pathOrName);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new NearwireError(
      Code.InvalidArgument,
      `Unix socket path ${bytes} B > ${MAX_SOCKET_PATH_BYTES} B limit (sun_path): ${address}`,
      { reason: "path-too-long" },
    );
  }
}

function invalid(address: string, why: string): NearwireError {
  return new NearwireError(Code.InvalidArgument, `invalid address "${address}": ${why}`);
}
