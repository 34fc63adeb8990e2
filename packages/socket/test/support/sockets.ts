import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NearwireError } from "@nearwire/core";

/** A temporary directory for socket files; `cleanup` removes it and reports what was left. */
export function tempDir(): { dir: string; path(name: string): string; cleanup(): string[] } {
  const dir = mkdtempSync(join(tmpdir(), "nw-sock-"));
  return {
    dir,
    path: (name) => join(dir, name),
    cleanup() {
      const left = readdirSync(dir);
      rmSync(dir, { recursive: true, force: true });
      return left;
    },
  };
}

let counter = 0;
/** A unique Linux abstract socket name for this test process, as `unix-abstract:<name>`. */
export function abstractName(): string {
  return `unix-abstract:nearwire-socket-test-${process.pid}-${counter++}`;
}

/** Awaits `promise` and returns what it rejected with; fails if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<NearwireError> {
  try {
    await promise;
  } catch (err) {
    return err as NearwireError;
  }
  assert.fail("expected a rejection");
}

/** Asserts `err` is a NearwireError with this code (and reason, when given). */
export function assertCode(err: unknown, code: number, reason?: string): void {
  const e = err as NearwireError;
  assert.equal(e?.name, "NearwireError", String(err));
  assert.equal(e.code, code, String(err));
  if (reason !== undefined) assert.equal(e.reason, reason, String(err));
}

/** Leaves a socket file nobody listens on: a child binds it and dies by SIGKILL. */
export async function staleSocket(path: string): Promise<void> {
  const code = `require("net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"))`;
  const child = spawn(process.execPath, ["-e", code], { stdio: "ignore" });
  await new Promise((r) => child.once("exit", r));
  assert.ok(lstatSync(path, { bigint: true }).isSocket(), "stale socket file left behind");
}

/** Another process listening on a socket path with plain node:net; `stop` ends it. */
export async function liveServer(path: string): Promise<{ stop(): Promise<void> }> {
  const code = `const s = require("net").createServer((c) => { c.on("error", () => {}); c.end("peer"); }).listen(${JSON.stringify(path)}, () => console.log("ready")); process.stdin.on("end", () => s.close(() => process.exit(0))); process.stdin.resume();`;
  const child: ChildProcess = spawn(process.execPath, ["-e", code], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once("data", () => resolve());
    child.once("exit", (c) => reject(new Error(`live server exited ${c}`)));
  });
  return {
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      child.stdin?.end();
      await exited;
    },
  };
}
