/** Temporary addresses, directories and children of a suite run, checked for leaks at teardown. */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Worker } from "node:worker_threads";

/** Longest Unix socket path Linux accepts (`sun_path` is 108 bytes with the NUL). */
export const MAX_SOCKET_PATH_BYTES = 107;

/**
 * Addresses and child processes of one suite run, checked at teardown: a socket file left in
 * the temporary directory or a child still alive fails the suite.
 */
export interface TmpResources {
  /** The private temporary directory (under `os.tmpdir()`) holding socket files. */
  readonly dir: string;
  /** A fresh, unused socket path in {@link dir}, at most 107 bytes. */
  socketPath(): string;
  /** A fresh Linux abstract socket name, as `unix-abstract:<name>`. */
  abstractName(): string;
  /** A free port on 127.0.0.1 (bound, then released), as `tcp:127.0.0.1:<port>`. */
  tcpAddress(): Promise<string>;
  /** Registers a child process: teardown fails (and kills it by PID) if it is still alive. */
  track(child: ChildProcess): void;
  /** A fresh address for a server thread (`thread:<n>`; see `thread-child.ts`). */
  threadAddress(): string;
  /** Registers a server thread: teardown fails (and terminates it) if it is still running. */
  trackThread(worker: Worker): void;
  /**
   * Kills tracked children still alive (SIGKILL, by PID), removes the directory, and returns
   * what leaked (an empty list when nothing did).
   */
  cleanup(): Promise<string[]>;
}

/** Creates the temporary resources of one suite run. */
export function createTmpResources(): TmpResources {
  const dir = mkdtempSync(join(tmpdir(), "nwc-"));
  const tag = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const children: ChildProcess[] = [];
  const threads: { worker: Worker; exited: boolean }[] = [];
  let n = 0;
  return {
    dir,
    socketPath() {
      const path = join(dir, `s${++n}.sock`);
      if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
        throw new Error(
          `socket path ${path} is over ${MAX_SOCKET_PATH_BYTES} B: set TMPDIR shorter`,
        );
      }
      return path;
    },
    abstractName() {
      return `unix-abstract:nwc-${tag}-${++n}`;
    },
    async tcpAddress() {
      const port = await new Promise<number>((resolve, reject) => {
        const srv = createServer();
        srv.once("error", reject);
        srv.listen(0, "127.0.0.1", () => {
          const addr = srv.address();
          const p = typeof addr === "object" && addr !== null ? addr.port : 0;
          srv.close(() => resolve(p));
        });
      });
      return `tcp:127.0.0.1:${port}`;
    },
    track(child) {
      children.push(child);
    },
    threadAddress() {
      return `thread:${tag}-${++n}`;
    },
    trackThread(worker) {
      const t = { worker, exited: false };
      worker.once("exit", () => {
        t.exited = true;
      });
      threads.push(t);
    },
    async cleanup() {
      const leaks: string[] = [];
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
          leaks.push(`child process ${child.pid} still alive at teardown`);
          const exited = new Promise((resolve) => child.once("exit", resolve));
          process.kill(child.pid, "SIGKILL");
          await exited;
        }
      }
      for (const t of threads) {
        if (t.exited) continue;
        leaks.push(`server thread ${t.worker.threadId} still running at teardown`);
        await t.worker.terminate();
      }
      for (const name of readdirSync(dir)) leaks.push(`file left behind: ${join(dir, name)}`);
      rmSync(dir, { recursive: true, force: true });
      return leaks;
    },
  };
}
