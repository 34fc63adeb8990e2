/**
 * Servers in worker threads of the test process, for transports between threads
 * (`@nearwire/worker`): the thread counterpart of `child-process.ts`, with the same
 * {@link SuiteChild} face (SIGTERM = graceful close, SIGKILL = `worker.terminate()`), and the
 * registry a thread transport's factory module reads to find the server thread of an address.
 */
import { Worker } from "node:worker_threads";
import type { ChildExit, SuiteChild } from "./child-process.js";
import { LineLog } from "./line-log.js";
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
): SuiteChild {
  const worker = new Worker(file, { workerData: { config }, stderr: true });
  serverThreads.set(address, worker);
  let stderr = "";
  let killed = false;
  worker.stderr.setEncoding("utf8").on("data", (s: string) => {
    if (stderr.length < 64 * 1024) stderr += s;
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
  const log = new LineLog(`thread ${worker.threadId}`, exited, () => stderr);
  worker.on("message", (m: { line?: unknown }) => {
    if (typeof m?.line === "string") log.push(m.line);
  });
  tmp.trackThread(worker);
  return {
    pid: worker.threadId,
    get process(): never {
      throw new Error("a server thread has no child process");
    },
    exited,
    waitForLine: (prefix, timeoutMs) => log.waitFor(prefix, timeoutMs),
    lines: () => log.lines,
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
