/** startServerProcess: a test server in a child process, started and stopped cleanly. */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** A server running in a child process; `stop()` ends it (SIGTERM) and waits for its exit. */
export interface ServerProcess {
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `node --import tsx <file> ...args` and resolves once it prints a stdout line starting
 * with `readyPrefix` (default `ready`); rejects if it exits first or stays silent for
 * `timeoutMs` (default 10,000). For tests whose peer must be another process.
 */
export async function startServerProcess(
  file: URL | string,
  args: string[],
  options: { readyPrefix?: string; timeoutMs?: number } = {},
): Promise<ServerProcess> {
  const path = file instanceof URL ? fileURLToPath(file) : file;
  const prefix = options.readyPrefix ?? "ready";
  const child = spawn(process.execPath, ["--import", "tsx", path, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(
      () => reject(new Error(`${path} printed no "${prefix}" line`)),
      options.timeoutMs ?? 10_000,
    );
    child.stdout.setEncoding("utf8").on("data", (s: string) => {
      out += s;
      if (out.split("\n").some((l) => l.startsWith(prefix))) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${path} exited (${code ?? signal}) before it was ready`));
    });
  });
  return {
    pid: child.pid as number,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
