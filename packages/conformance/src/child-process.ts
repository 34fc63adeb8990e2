/** Child processes of the suites (server and client mains, peers), their output as lines. */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { type ChildExit, LineLog } from "./line-log.js";
import type { TmpResources } from "./tmp-resources.js";

export type { ChildExit } from "./line-log.js";

/** A child process of a suite (or a server thread, `thread-child.ts`), its stdout as lines. */
export interface SuiteChild {
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

/**
 * Whether a child that runs `file` and imports `modules` (factory and codec module URLs) needs
 * the TypeScript loader: any of them ends in `.ts`, `.mts` or `.cts`.
 */
export function needsTsLoader(file: string, modules: readonly (string | undefined)[]): boolean {
  return [file, ...modules].some((m) => m !== undefined && /\.[mc]?ts$/.test(m));
}

/**
 * Spawns `process.execPath <file> ...args`, tracked by `tmp`; with `--import tsx` when
 * {@link needsTsLoader} says so. The loader costs a child about half a second of start-up
 * (its module hooks run on their own thread), so a transport whose factory module is
 * JavaScript (importing its built package) starts its servers in a third of the time.
 */
export function spawnChild(
  file: string,
  args: string[],
  tmp: TmpResources,
  modules: readonly (string | undefined)[],
): SuiteChild {
  const loader = needsTsLoader(file, modules) ? ["--import", "tsx"] : [];
  const child = spawn(process.execPath, [...loader, file, ...args], {
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
