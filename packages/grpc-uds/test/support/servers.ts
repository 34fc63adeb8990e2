import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SERVER_MAIN = new URL("../fixtures/server-main.ts", import.meta.url).pathname;

/** A server child process serving the test service. */
export interface ServerChild {
  readonly address: string;
  readonly child: ChildProcess;
  /** Lines the child printed on stdout. */
  readonly lines: string[];
  /** SIGTERM, then waits for exit (SIGKILL after 10 s); resolves with the output lines. */
  stop(): Promise<string[]>;
}

/** Spawns the test server; resolves after `READY`, rejects with its output otherwise. */
export function startServer(
  address: string,
  maxMessageBytes?: number,
  graceMs?: number,
): Promise<ServerChild> {
  const args = [
    "--import",
    "tsx",
    SERVER_MAIN,
    address,
    String(maxMessageBytes ?? ""),
    String(graceMs ?? 2000),
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let buffer = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start: ${lines.join(" | ")}`));
    }, 20_000);
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      let nl = buffer.indexOf("\n");
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        lines.push(line);
        if (line.startsWith("READY ")) {
          clearTimeout(timer);
          resolve({
            address: line.slice("READY ".length),
            child,
            lines,
            async stop() {
              if (child.exitCode === null && child.signalCode === null) {
                child.kill("SIGTERM");
                const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
                await exited;
                clearTimeout(kill);
              }
              return lines;
            },
          });
        } else if (line.startsWith("FAILED")) {
          clearTimeout(timer);
          reject(Object.assign(new Error(line), { line }));
        }
        nl = buffer.indexOf("\n");
      }
    });
    child.once("exit", () => {
      clearTimeout(timer);
      reject(new Error(`server exited: ${lines.join(" | ")}`));
    });
  });
}

/** A fresh temp dir (removed by `cleanup`). */
export function tempDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "nw-grpc-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A unique abstract socket name for this process. */
export function abstractName(tag: string): string {
  return `nearwire-grpc-test-${process.pid}-${tag}-${Math.random().toString(36).slice(2, 8)}`;
}
