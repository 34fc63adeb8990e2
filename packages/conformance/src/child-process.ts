/** TypeScript child processes of the suites (server and client mains), their output as lines. */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { type ChildExit, LineLog } from "./line-log.js";
import type { TmpResources } from "./tmp-resources.js";

export type { ChildExit } from "./line-log.js";

/** A TypeScript child process run with `--import tsx`, with its stdout as lines. */
export interface TsChild {
  readonly pid: number;
  readonly process: ChildProcess;
  /** Resolves when the child has exited. */
  readonly exited: Promise<ChildExit>;
  /** Resolves with the first stdout line starting with `prefix` (past or future). */
  waitForLine(prefix: string, timeoutMs: number): Promise<string>;
  /** The stdout lines printed so far. */
  lines(): readonly string[];
  /** Everything the child wrote on stderr so far (for failure messages). */
  stderr(): string;
  /** Sends `signal` to this child by PID (no-op once it has exited). */
  signal(signal: NodeJS.Signals): void;
}

/** Spawns `process.execPath --import tsx <file> ...args`, tracked by `tmp`. */
export function spawnTsChild(file: string, args: string[], tmp: TmpResources): TsChild {
  const child = spawn(process.execPath, ["--import", "tsx", file, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  tmp.track(child);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not spawn ${file}`);
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (s: string) => {
    if (stderr.length < 64 * 1024) stderr += s;
  });
  const exited = new Promise<ChildExit>((resolve) => {
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  const log = new LineLog(`child ${pid} (${file})`, exited, () => stderr);
  if (child.stdout !== null)
    createInterface({ input: child.stdout }).on("line", (line) => log.push(line));
  return {
    pid,
    process: child,
    exited,
    lines: () => log.lines,
    stderr: () => stderr,
    signal(sig) {
      if (child.exitCode === null && child.signalCode === null) process.kill(pid, sig);
    },
    waitForLine: (prefix, timeoutMs) => log.waitFor(prefix, timeoutMs),
  };
}
