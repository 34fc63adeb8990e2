import { createHash } from "node:crypto";
import { connect, createServer, type Server } from "node:net";

/**
 * One upload per name across processes that serve the same root.
 *
 * The lock is an abstract Unix socket name (Linux), bound for as long as the upload runs:
 * `\0nearwire-transfer/<sha256(root device:inode, name)>`. Binding is atomic (a second bind is
 * EADDRINUSE), and the kernel drops the name when its socket closes — on release, on a crash,
 * on SIGKILL — so a lock is never stale and needs no pid file, no stale detection and no
 * native `flock`. The root is identified by device and inode, so two servers that reach one
 * directory through different paths (a bind mount, a symlinked parent) still exclude each other.
 *
 * Limits: abstract names live in the network namespace, so two containers with separate
 * network namespaces sharing one volume do not see each other's locks (serve a root from one
 * namespace); any local user of that namespace could bind the name first, which makes uploads
 * of that name ABORTED, never interleaved. Off Linux there are no abstract names: the lock is
 * per process only ({@link CROSS_PROCESS_LOCKS} is false).
 */

/** True where uploads are locked across processes (Linux abstract socket names). */
export const CROSS_PROCESS_LOCKS = process.platform === "linux";

/** A held lock. */
export interface UploadLock {
  release(): Promise<void>;
}

/** The abstract socket name of `name`'s lock under the root identified by `rootId`. */
export function lockAddress(rootId: string, name: string): string {
  const key = createHash("sha256").update(rootId).update("\0").update(name).digest("hex");
  return `\0nearwire-transfer/${key.slice(0, 48)}`;
}

/**
 * Takes the lock of `name` under `rootId`; undefined when another process holds it. Off Linux
 * it always succeeds (the caller's in-process set is then the only lock).
 */
export async function lockUpload(rootId: string, name: string): Promise<UploadLock | undefined> {
  if (!CROSS_PROCESS_LOCKS) return { release: async () => {} };
  const server: Server = createServer((socket) => socket.destroy());
  const bound = await new Promise<boolean>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      err.code === "EADDRINUSE" ? resolve(false) : reject(err),
    );
    server.listen({ path: lockAddress(rootId, name), exclusive: true }, () => resolve(true));
  });
  if (!bound) return undefined;
  server.unref();
  return {
    release: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** True when some process holds the lock of `name` (a connect to its name succeeds). */
export async function isLocked(rootId: string, name: string): Promise<boolean> {
  if (!CROSS_PROCESS_LOCKS) return false;
  return new Promise<boolean>((resolve) => {
    const socket = connect(lockAddress(rootId, name));
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
