/** bindSocketFile: binds a Unix socket file with its mode set before it is visible at its path. */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { chmod, type FileHandle, link, lstat, mkdtemp, open, rm, unlink } from "node:fs/promises";
import type net from "node:net";
import { basename, dirname, join } from "node:path";
import { Code, NearwireError } from "@nearwire/core";
import { MAX_SOCKET_PATH_BYTES } from "./socket-address.js";
import { addressInUse, clearStaleSocket } from "./stale-socket.js";

/** Options of {@link bindSocketFile}. */
export interface BindSocketFileOptions {
  /** Permission bits the socket file has from the moment it is visible at its path. */
  mode: number;
  /** Listen backlog. */
  backlog: number;
}

/**
 * Makes `server` listen on a socket file at `path` that is never visible there with any mode
 * but `mode`, whatever the process umask, without touching the umask (so it works the same in
 * worker threads and with other code binding concurrently):
 *
 * 1. `path` is cleared with {@link clearStaleSocket} (stale socket removed; live one →
 *    ALREADY_EXISTS `address-in-use`; not a socket → FAILED_PRECONDITION, left alone);
 * 2. the server binds in a fresh 0700 directory next to `path` (same filesystem; nobody else
 *    can reach a socket in it), and the socket gets `mode`;
 * 3. it is hard-linked to `path` (atomic, and unlike rename(2) it never replaces a file that
 *    appeared meanwhile: then step 1 runs again), and the temporary name and directory go.
 *
 * When the temporary path would be over {@link MAX_SOCKET_PATH_BYTES}, the bind goes through
 * `/proc/self/fd/<dir fd>/`. Resolves with the socket file's inode, for removing it later only
 * if it is still ours. On failure the server is closed and nothing is left on disk.
 */
export async function bindSocketFile(
  server: net.Server,
  path: string,
  options: BindSocketFileOptions,
): Promise<bigint> {
  await clearStaleSocket(path);
  let dir: string;
  try {
    dir = await mkdtemp(join(dirname(path), ".nearwire-bind-"));
  } catch (err) {
    throw bindError(path, err);
  }
  let dirHandle: FileHandle | undefined;
  try {
    let bindPath = join(dir, "s");
    if (Buffer.byteLength(bindPath) > MAX_SOCKET_PATH_BYTES) {
      dirHandle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
      // A random name: libuv unlinks the bound name on close, and by then fd N may be another
      // directory.
      bindPath = `/proc/self/fd/${dirHandle.fd}/s-${randomBytes(8).toString("hex")}`;
    }
    await listen(server, bindPath, options.backlog);
    const bound = join(dir, basename(bindPath));
    try {
      await chmod(bound, options.mode);
      const { ino } = await lstat(bound, { bigint: true });
      await publish(bound, path);
      await unlink(bound);
      return ino;
    } catch (err) {
      server.close();
      throw err;
    }
  } catch (err) {
    throw bindError(path, err);
  } finally {
    await dirHandle?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Links `from` to `to`; if `to` appeared since it was cleared, clears it again (twice at most). */
async function publish(from: string, to: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await link(from, to);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      if (attempt === 3) throw addressInUse(to, err);
      await clearStaleSocket(to);
    }
  }
}

function listen(server: net.Server, path: string, backlog: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen({ path, backlog }, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

/** A missing directory is NOT_FOUND (not the UNAVAILABLE errno mapping of connections). */
function bindError(path: string, err: unknown): NearwireError {
  if (err instanceof NearwireError) return err;
  if ((err as NodeJS.ErrnoException).code === "ENOENT") {
    return new NearwireError(Code.NotFound, `directory of ${path} does not exist`, {
      cause: err,
    });
  }
  return NearwireError.from(err, Code.Internal);
}
