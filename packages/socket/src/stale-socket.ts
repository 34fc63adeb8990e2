/** Stale socket files: free a path nobody listens on, refuse a live one, remove our own. */
import { lstat, unlink } from "node:fs/promises";
import net from "node:net";
import { Code, NearwireError } from "@nearwire/core";

// Every stat of a socket file here is asynchronous or BigInt: a synchronous numeric stat of a
// socket leaves S_IFSOCK in Node's shared stat array, and the module loader's cached realpath
// then stops following symlinks (nodejs/node#51142): loading @grpc/grpc-js from a pnpm tree
// after binding failed with "Cannot find module '@js-sdsl/ordered-map'".

/**
 * Makes `path` free for a new socket: nothing there → done; a socket file nobody listens on
 * (connecting is refused) → removed. Throws FAILED_PRECONDITION when the path holds something
 * that is not a socket (it is left alone) and ALREADY_EXISTS reason `address-in-use` when a
 * server accepts on it (or its backlog is full, or we may not connect to find out).
 */
export async function clearStaleSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(path, { bigint: true })).isSocket();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw NearwireError.from(err, Code.Internal);
  }
  if (!isSocket) {
    throw new NearwireError(
      Code.FailedPrecondition,
      `${path} exists and is not a socket; not removing it`,
    );
  }
  const outcome = await probe(path);
  if (outcome === "ENOENT") return;
  if (outcome !== "ECONNREFUSED") throw addressInUse(path);
  try {
    await unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw NearwireError.from(err);
  }
}

/**
 * Removes the socket file at `path` if it is still the one with inode `ino` (another server may
 * have replaced it since); a missing file is fine.
 */
export async function removeOwnSocket(path: string, ino: bigint): Promise<void> {
  try {
    const st = await lstat(path, { bigint: true });
    if (st.isSocket() && st.ino === ino) await unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw NearwireError.from(err);
  }
}

/** ALREADY_EXISTS reason `address-in-use` for `address`. */
export function addressInUse(address: string, cause?: unknown): NearwireError {
  return new NearwireError(Code.AlreadyExists, `address in use: ${address}`, {
    reason: "address-in-use",
    cause,
  });
}

/** Connects once: `live`, or the errno of the failure (`ECONNREFUSED` for a stale file). */
function probe(path: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ path });
    socket.once("connect", () => {
      socket.destroy();
      resolve("live");
    });
    socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? "error"));
  });
}
