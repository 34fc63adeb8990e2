/** bindStreamListener: the listening socket's whole lifecycle for every transport. */
import net from "node:net";
import { Code, NearwireError } from "@nearwire/core";
import { bindSocketFile } from "./bind-socket-file.js";
import { formatTcp, parseAddress, type SocketAddress } from "./socket-address.js";
import { addressInUse, removeOwnSocket } from "./stale-socket.js";

/** Options of {@link bindStreamListener}. */
export interface StreamListenerOptions {
  /** Called for each accepted socket (TCP sockets already have TCP_NODELAY set). */
  onConnection(socket: net.Socket): void;
  /** Permission bits of a socket file (path addresses only). Default 0o600 (owner only). */
  socketMode?: number;
  /** Listen backlog (pending connections the kernel queues). Default 511. */
  backlog?: number;
}

/** A bound stream listener. */
export interface StreamListener {
  /** The bound address in canonical form (see `parseAddress`); for TCP port 0, the real port. */
  readonly address: string;
  /** The parsed bound address. */
  readonly parsed: SocketAddress;
  /**
   * The underlying server. For a socket file its own `address()` names the temporary path it
   * was bound at; use {@link StreamListener.address}.
   */
  readonly server: net.Server;
  /**
   * Stops accepting and removes the socket file if it is still the one bound here. Sockets
   * already accepted stay open; resolves without waiting for them.
   */
  close(): Promise<void>;
}

/** Default listen backlog. */
export const DEFAULT_BACKLOG = 511;

/** Default mode of a socket file: read/write for the owner only. */
export const DEFAULT_SOCKET_MODE = 0o600;

/**
 * Binds a stream listener on a socket file, a Linux abstract name or TCP (forms: `parseAddress`).
 *
 * A socket file is bound by `bindSocketFile`: it appears at its path already with
 * `socketMode` (default 0600), whatever the umask and in worker threads too; a stale socket file
 * there is replaced; a live one → ALREADY_EXISTS reason `address-in-use`; a file that is not a
 * socket → FAILED_PRECONDITION, and it is left alone; a missing directory → NOT_FOUND. The
 * file is removed on `close` if it is still ours. An abstract name or TCP port in use →
 * ALREADY_EXISTS reason `address-in-use`. A path over 107 bytes → INVALID_ARGUMENT reason
 * `path-too-long` (from `parseAddress`).
 */
export async function bindStreamListener(
  address: string | SocketAddress,
  options: StreamListenerOptions,
): Promise<StreamListener> {
  const parsed = typeof address === "string" ? parseAddress(address) : address;
  const mode = options.socketMode ?? DEFAULT_SOCKET_MODE;
  const backlog = options.backlog ?? DEFAULT_BACKLOG;
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o777) {
    throw new NearwireError(Code.InvalidArgument, `socketMode ${mode} is not in 0..0o777`);
  }
  if (!Number.isInteger(backlog) || backlog < 1) {
    throw new NearwireError(Code.InvalidArgument, `backlog ${backlog} is not a positive integer`);
  }
  const server = net.createServer({ noDelay: parsed.kind === "tcp" }, (socket) =>
    options.onConnection(socket),
  );
  if (parsed.kind === "path") {
    const ino = await bindSocketFile(server, parsed.path, { mode, backlog });
    return makeListener(server, parsed, () => removeOwnSocket(parsed.path, ino));
  }
  try {
    await listen(
      server,
      parsed.kind === "abstract"
        ? { path: `\0${parsed.name}`, backlog }
        : { host: parsed.host, port: parsed.port, backlog },
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE")
      throw addressInUse(parsed.address, err);
    throw NearwireError.from(err, Code.Internal);
  }
  if (parsed.kind === "tcp") {
    const port = (server.address() as net.AddressInfo).port;
    const bound = { ...parsed, port, address: formatTcp(parsed.host, port) };
    return makeListener(server, bound, async () => {});
  }
  return makeListener(server, parsed, async () => {});
}

function makeListener(
  server: net.Server,
  parsed: SocketAddress,
  cleanup: () => Promise<void>,
): StreamListener {
  let closed: Promise<void> | undefined;
  return {
    address: parsed.address,
    parsed,
    server,
    close() {
      if (closed === undefined) {
        // Stops accepting at once; server.close's callback would wait for accepted sockets.
        server.close();
        closed = cleanup();
      }
      return closed;
    },
  };
}

function listen(server: net.Server, options: net.ListenOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen(options, () => {
      server.off("error", onError);
      resolve();
    });
  });
}
