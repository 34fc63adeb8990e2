/**
 * Address forms accepted by `@nearwire/uds`:
 *
 * | form | kind |
 * | --- | --- |
 * | `/abs/path.sock`, `unix:/abs/path.sock` | Unix domain socket at a filesystem path |
 * | `unix-abstract:name`, `@name` | Linux abstract socket (no file) |
 * | `tcp:127.0.0.1:7000`, `127.0.0.1:7000`, `tcp:[::1]:7000`, `localhost:7000` | TCP |
 */
import { Code, NearwireError } from "@nearwire/core";

/**
 * Longest Unix socket path or abstract name, in bytes: `sun_path` is 108 bytes on Linux, one of
 * which is the terminating NUL (or, for an abstract name, the leading NUL).
 */
export const MAX_UNIX_PATH_BYTES = 107;

/** A parsed address; `address` is its canonical string form (what a listener reports). */
export type ParsedAddress =
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
 * {@link MAX_UNIX_PATH_BYTES} bytes. Relative paths must use the `unix:` prefix.
 */
export function parseAddress(address: string): ParsedAddress {
  if (address.startsWith("unix:") || address.startsWith("/")) {
    const path = address.startsWith("unix:") ? address.slice(5) : address;
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
  const rest = address.startsWith("tcp:") ? address.slice(4) : address;
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

/** `tcp:host:port`, with IPv6 hosts in brackets. */
export function formatTcp(host: string, port: number): string {
  return `tcp:${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The `path` argument node:net takes for a Unix address (abstract names get a leading NUL). */
export function netPath(parsed: ParsedAddress): string {
  if (parsed.kind === "path") return parsed.path;
  if (parsed.kind === "abstract") return `\0${parsed.name}`;
  throw new NearwireError(Code.Internal, `${parsed.address} is not a Unix address`);
}

function checkLength(pathOrName: string, address: string): void {
  const bytes = Buffer.byteLength(pathOrName);
  if (bytes > MAX_UNIX_PATH_BYTES) {
    throw new NearwireError(
      Code.InvalidArgument,
      `Unix socket path ${bytes} B > ${MAX_UNIX_PATH_BYTES} B limit (sun_path): ${address}`,
      { reason: "path-too-long" },
    );
  }
}

function invalid(address: string, why: string): NearwireError {
  return new NearwireError(Code.InvalidArgument, `invalid address "${address}": ${why}`);
}
