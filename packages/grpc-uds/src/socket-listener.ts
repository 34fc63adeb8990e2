import { chmod, lstat, unlink } from "node:fs/promises";
import { connect, createServer, type Server as NetServer, type Socket } from "node:net";
import { Code, NearwireError } from "@nearwire/core";
import { formatGrpcAddress, type GrpcAddress } from "./grpc-address.js";

/**
 * The socket grpc-uds binds itself (grpc-js then serves the accepted connections through its
 * connection injector). Local to this package: `@nearwire/uds` did not export its stale-file,
 * mode and length checks when this was written; the behaviour is meant to be the same.
 */
export interface SocketListener {
  /** The bound address in canonical form, with the real port when port 0 was asked for. */
  readonly address: string;
  /** Stops accepting and removes the socket file (only if it is still the one we bound). */
  close(): Promise<void>;
}

/**
 * Binds `address` and hands every accepted socket to `onConnection`.
 *
 * - A socket file nobody listens on (stale) is removed first; a live one, or a file that is not
 *   a socket, fails with ALREADY_EXISTS reason `address-in-use` (so does a bound abstract name
 *   or TCP port).
 * - The socket file gets `socketMode` (default 0o600) right after bind.
 */
export async function bindSocketListener(
  address: GrpcAddress,
  socketMode: number,
  onConnection: (socket: Socket) => void,
): Promise<SocketListener> {
  if (address.kind === "path") await removeStaleSocket(address.path);
  const server = createServer({ noDelay: true }, onConnection);
  await listen(server, address);
  let inode: number | undefined;
  if (address.kind === "path") {
    try {
      await chmod(address.path, socketMode);
      inode = (await lstat(address.path)).ino;
    } catch (cause) {
      await closeServer(server);
      throw NearwireError.from(cause, Code.Internal);
    }
  }
  let bound = address;
  if (address.kind === "tcp") {
    const info = server.address();
    if (info !== null && typeof info === "object") bound = { ...address, port: info.port };
  }
  return {
    address: formatGrpcAddress(bound),
    async close() {
      await closeServer(server);
      if (address.kind === "path") await removeOwnSocket(address.path, inode);
    },
  };
}

function listen(server: NetServer, address: GrpcAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(NearwireError.from(err, Code.Unavailable));
    server.once("error", onError);
    const done = () => {
      server.off("error", onError);
      resolve();
    };
    if (address.kind === "tcp") server.listen({ host: address.host, port: address.port }, done);
    else
      server.listen({ path: address.kind === "path" ? address.path : `\0${address.name}` }, done);
  });
}

function closeServer(server: NetServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Removes a socket file nobody listens on; throws ALREADY_EXISTS if it is live or no socket. */
async function removeStaleSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(path)).isSocket();
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return;
    throw NearwireError.from(cause, Code.Internal);
  }
  if (!isSocket) {
    throw new NearwireError(Code.AlreadyExists, `${path} exists and is not a socket`, {
      reason: "address-in-use",
    });
  }
  if (await isLive(path)) {
    throw new NearwireError(Code.AlreadyExists, `${path} is in use by a live listener`, {
      reason: "address-in-use",
    });
  }
  await unlink(path).catch(ignoreEnoent);
}

/** True when something accepts connections on the socket file (or we cannot tell). */
function isLive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect({ path });
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", (err: NodeJS.ErrnoException) =>
      resolve(err.code !== "ECONNREFUSED" && err.code !== "ENOENT"),
    );
  });
}

async function removeOwnSocket(path: string, inode: number | undefined): Promise<void> {
  try {
    const st = await lstat(path);
    if (st.isSocket() && st.ino === inode) await unlink(path);
  } catch (cause) {
    ignoreEnoent(cause);
  }
}

function ignoreEnoent(cause: unknown): void {
  if ((cause as NodeJS.ErrnoException).code !== "ENOENT") throw cause;
}
