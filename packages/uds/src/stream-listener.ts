import { chmodSync, lstatSync, unlinkSync } from "node:fs";
import { lstat, unlink } from "node:fs/promises";
import net from "node:net";
import { Code, NearwireError } from "@nearwire/core";
import { formatTcp, netPath, type ParsedAddress, parseAddress } from "./parse-address.js";

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
  /** The bound address in canonical form; for TCP port 0, the real port. */
  readonly address: string;
  /** The parsed bound address. */
  readonly parsed: ParsedAddress;
  /** The underlying server. */
  readonly server: net.Server;
  /**
   * Stops accepting and unbinds (removes the socket file). Sockets already accepted stay open;
   * resolves without waiting for them.
   */
  close(): Promise<void>;
}

/** Default listen backlog. */
export const DEFAULT_BACKLOG = 511;

/** Default mode of a socket file: read/write for the owner only. */
export const DEFAULT_SOCKET_MODE = 0o600;

/**
 * Binds a stream listener on a Unix path, a Linux abstract name or TCP (see `parseAddress`).
 *
 * For a path: an existing socket file that nobody listens on (connecting to it is refused) is
 * removed and re-bound; one held by a live server → ALREADY_EXISTS, reason `address-in-use`; a
 * file that is not a socket → FAILED_PRECONDITION, and the file is left alone. The socket file
 * is created with `socketMode` (default 0600) and removed on `close`. A path over 107 bytes →
 * INVALID_ARGUMENT, reason `path-too-long`. An abstract name or TCP port in use →
 * ALREADY_EXISTS, reason `address-in-use`.
 */
export async function bindStreamListener(
  address: string | ParsedAddress,
  options: StreamListenerOptions,
): Promise<StreamListener> {
  const parsed = typeof address === "string" ? parseAddress(address) : address;
  const mode = options.socketMode ?? DEFAULT_SOCKET_MODE;
  const backlog = options.backlog ?? DEFAULT_BACKLOG;
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o777) {
    throw new NearwireError(
      Code.InvalidArgument,
      `socketMode 0o${mode.toString(8)} is not in 0..0o777`,
    );
  }
  if (!Number.isInteger(backlog) || backlog < 1) {
    throw new NearwireError(Code.InvalidArgument, `backlog ${backlog} is not a positive integer`);
  }
  const server = net.createServer({ noDelay: parsed.kind === "tcp" }, (socket) =>
    options.onConnection(socket),
  );
  if (parsed.kind === "path") {
    await refuseNonSocket(parsed.path);
    try {
      await listenPath(server, parsed.path, backlog, mode);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw NearwireError.from(err);
      await removeStaleSocket(parsed.path);
      await listenPath(server, parsed.path, backlog, mode).catch((e: unknown) => {
        throw inUse(parsed.address, e);
      });
    }
    const ino = lstatSync(parsed.path).ino;
    return makeListener(server, parsed, () => {
      // libuv unlinks the file on close; remove it here only if it is still our socket.
      try {
        const st = lstatSync(parsed.path);
        if (st.isSocket() && st.ino === ino) unlinkSync(parsed.path);
      } catch {
        // already gone
      }
    });
  }
  try {
    await listen(
      server,
      parsed.kind === "abstract"
        ? { path: netPath(parsed), backlog }
        : { host: parsed.host, port: parsed.port, backlog },
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") throw inUse(parsed.address, err);
    throw NearwireError.from(err);
  }
  if (parsed.kind === "tcp") {
    const bound = server.address() as net.AddressInfo;
    return makeListener(
      server,
      {
        kind: "tcp",
        host: parsed.host,
        port: bound.port,
        address: formatTcp(parsed.host, bound.port),
      },
      () => {},
    );
  }
  return makeListener(server, parsed, () => {});
}

function makeListener(
  server: net.Server,
  parsed: ParsedAddress,
  cleanup: () => void,
): StreamListener {
  let closed: Promise<void> | undefined;
  return {
    address: parsed.address,
    parsed,
    server,
    close() {
      closed ??= new Promise<void>((resolve) => {
        // Stops accepting at once; the callback would wait for accepted sockets, so don't.
        server.close();
        cleanup();
        resolve();
      });
      return closed;
    },
  };
}

function listen(server: net.Server, opts: net.ListenOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen(opts, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

/** Listens on a path with the socket file created as `mode` (umask during bind, then chmod). */
async function listenPath(
  server: net.Server,
  path: string,
  backlog: number,
  mode: number,
): Promise<void> {
  let previous: number | undefined;
  try {
    previous = process.umask(~mode & 0o777);
  } catch {
    // Worker threads cannot set the umask; the chmod below still applies the mode.
  }
  let pending: Promise<void>;
  try {
    // node:net binds synchronously inside listen(), so the umask covers the bind.
    pending = listen(server, { path, backlog });
  } finally {
    if (previous !== undefined) process.umask(previous);
  }
  await pending;
  chmodSync(path, mode);
}

async function refuseNonSocket(path: string): Promise<void> {
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(path);
  } catch {
    return;
  }
  if (!st.isSocket()) {
    throw new NearwireError(
      Code.FailedPrecondition,
      `${path} exists and is not a socket; not removing it`,
    );
  }
}

/** Removes `path` if it is a socket nobody listens on; throws ALREADY_EXISTS if someone does. */
async function removeStaleSocket(path: string): Promise<void> {
  await refuseNonSocket(path);
  const outcome = await new Promise<string>((resolve) => {
    const probe = net.connect({ path });
    probe.once("connect", () => {
      probe.destroy();
      resolve("live");
    });
    probe.once("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? "error"));
  });
  if (outcome === "ENOENT") return;
  // Anything but "refused" (a live server, or one whose backlog is full: EAGAIN) is in use.
  if (outcome !== "ECONNREFUSED") throw inUse(path, undefined);
  try {
    await unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw NearwireError.from(err);
  }
}

function inUse(address: string, cause: unknown): NearwireError {
  return new NearwireError(Code.AlreadyExists, `address in use: ${address}`, {
    reason: "address-in-use",
    cause,
  });
}
