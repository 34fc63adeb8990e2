/**
 * Servers in worker threads of the test process, for transports between threads
 * (`@nearwire/worker`): the thread counterpart of `child-process.ts`, with the same
 * {@link TsChild} face (SIGTERM = graceful close, SIGKILL = `worker.terminate()`), and the
 * registry a thread transport's factory module reads to find the server thread of an address.
 */
import { Worker } from "node:worker_threads";
import type { ChildExit, TsChild } from "./child-process.js";
import type { TmpResources } from "./tmp-resources.js";

/** Server threads by address (`thread:N`), while they run. */
const serverThreads = new Map<string, Worker>();

/**
 * The server thread listening at `address` (a thread transport's client side connects to it),
 * or undefined when none runs there.
 */
export function threadServer(address: string): Worker | undefined {
  return serverThreads.get(address);
}

/** Message a server thread's parent sends in place of a signal. */
export interface ThreadSignal {
  conformanceSignal: "SIGTERM";
}

/**
 * Starts `file` (server-thread entry) as a worker thread with `workerData = { config }`,
 * registered under `address`; its `{ line }` messages are its stdout lines.
 */
export function spawnThreadChild(
  file: string,
  address: string,
  config: unknown,
  tmp: TmpResources,
): TsChild {
  const worker = new Worker(file, { workerData: { config }, stderr: true });
  serverThreads.set(address, worker);
  const lines: string[] = [];
  const waiters: { prefix: string; resolve: (line: string) => void }[] = [];
  let stderr = "";
  let killed = false;
  worker.stderr.setEncoding("utf8").on("data", (s: string) => {
    if (stderr.length < 64 * 1024) stderr += s;
  });
  worker.on("message", (m: { line?: unknown }) => {
    if (typeof m?.line !== "string") return;
    const line = m.line;
    lines.push(line);
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i];
      if (w !== undefined && line.startsWith(w.prefix)) {
        waiters.splice(i, 1);
        w.resolve(line);
      }
    }
  });
  worker.on("error", (err) => {
    stderr += `${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`;
  });
  const exited = new Promise<ChildExit>((resolve) => {
    worker.once("exit", (code) => {
      if (serverThreads.get(address) === worker) serverThreads.delete(address);
      resolve({ code: killed ? null : code, signal: killed ? "SIGKILL" : null });
    });
  });
  tmp.trackThread(worker);
  return {
    pid: worker.threadId,
    get process(): never {
      throw new Error("a server thread has no child process");
    },
    exited,
    waitForLine(prefix, timeoutMs) {
      const seen = lines.find((l) => l.startsWith(prefix));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(
            new Error(
              `thread ${worker.threadId}: no "${prefix}" line in ${timeoutMs} ms; stderr: ${stderr}`,
            ),
          );
        }, timeoutMs);
        timer.unref();
        waiters.push({
          prefix,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
      });
    },
    lines: () => lines,
    stderr: () => stderr,
    signal(signal) {
      if (signal === "SIGKILL") {
        killed = true;
        void worker.terminate();
      } else if (signal === "SIGTERM") {
        worker.postMessage({ conformanceSignal: "SIGTERM" } satisfies ThreadSignal);
      }
    },
  };
}
