// The README examples run: this package's (greeter in two processes, the channel layer) and the
// repository README's two-process greeter. The servers stop on SIGTERM / SIGINT as the examples
// say: exit code 0, socket file removed; the clients exit by themselves (`await using`).
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const blocksOf = (url: URL): string[] =>
  [...readFileSync(fileURLToPath(url), "utf8").matchAll(/```ts( \S+)?\n([\s\S]*?)```/g)].map(
    (m) => m[2] as string,
  );
const blocks = blocksOf(new URL("../README.md", import.meta.url));
const rootBlocks = blocksOf(new URL("../../../README.md", import.meta.url));
const src = fileURLToPath(new URL("../src/index.ts", import.meta.url));

/** Writes a README block into a temp dir inside the package (so its node_modules apply). */
function materialize(code: string): { file: string; dir: string } {
  const dir = mkdtempSync(fileURLToPath(new URL("../.readme-", import.meta.url)));
  const file = join(dir, "example.ts");
  writeFileSync(file, code.replace('from "@nearwire/uds"', `from ${JSON.stringify(src)}`));
  return { file, dir };
}

/** `serve` in one process, a call from another, then `signal` to the server. */
async function twoProcesses(code: string, signal: NodeJS.Signals): Promise<void> {
  const { file, dir } = materialize(code);
  const socketPath = join(dir, "greeter.sock");
  const env = { ...process.env, GREETER_ADDRESS: socketPath };
  const server = spawn(process.execPath, ["--import", "tsx", file, "serve"], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((r) => server.once("exit", (c) => r(c)));
  try {
    await new Promise<void>((resolve, reject) => {
      server.stdout.on("data", (d: Buffer) => d.toString().includes("serving on") && resolve());
      server.once("exit", (c) => reject(new Error(`server exited with ${c}`)));
    });
    assert.ok(existsSync(socketPath), "the server made its socket file");
    // The client must exit by itself: a connection left open would hit the timeout.
    const out = execFileSync(process.execPath, ["--import", "tsx", file, "call"], {
      env,
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.equal(out.trim(), "hello, Ada");
    server.kill(signal);
    assert.equal(await exited, 0, `the server exits 0 on ${signal}`);
    assert.equal(existsSync(socketPath), false, `${signal}: the socket file is removed`);
  } finally {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Lines `process` prints, as they come. */
function linesOf(child: ReturnType<typeof spawn>): { next(prefix: string): Promise<string> } {
  let out = "";
  const waiting: (() => void)[] = [];
  child.stdout?.setEncoding("utf8").on("data", (s: string) => {
    out += s;
    for (const w of waiting.splice(0)) w();
  });
  let from = 0;
  return {
    async next(prefix) {
      for (;;) {
        const lines = out.split("\n");
        for (let i = from; i < lines.length - 1; i++)
          if (lines[i]?.startsWith(prefix)) {
            from = i + 1;
            return lines[i] as string;
          }
        await new Promise<void>((resolve, reject) => {
          waiting.push(resolve);
          const timer = setTimeout(
            () => reject(new Error(`no "${prefix}" line in: ${out}`)),
            20_000,
          );
          timer.unref();
        });
      }
    },
  };
}

/** The clock example: `watch` keeps answering while its server is killed and restarted. */
async function clockAcrossRestart(code: string): Promise<void> {
  const { file, dir } = materialize(code);
  const env = { ...process.env, CLOCK_ADDRESS: join(dir, "clock.sock") };
  const start = (...args: string[]) =>
    spawn(process.execPath, ["--import", "tsx", file, ...args], {
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
  const children: ReturnType<typeof spawn>[] = [];
  const exitOf = (child: ReturnType<typeof spawn>) =>
    new Promise<number | null>((r) =>
      child.exitCode !== null || child.signalCode !== null
        ? r(child.exitCode)
        : child.once("exit", r),
    );
  try {
    const first = start("serve");
    children.push(first);
    await linesOf(first).next("serving on");
    const watch = start("watch", "40");
    children.push(watch);
    const watched = linesOf(watch);
    assert.equal(await watched.next("answered by"), `answered by ${first.pid}`);
    first.kill("SIGKILL");
    await exitOf(first);
    const second = start("serve");
    children.push(second);
    await linesOf(second).next("serving on");
    assert.equal(await watched.next("answered by"), `answered by ${second.pid}`);
    assert.equal(await exitOf(watch), 0, "watch ends by itself after its rounds");
    second.kill("SIGTERM");
    assert.equal(await exitOf(second), 0);
  } finally {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await Promise.all(children.map(exitOf));
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("README examples", () => {
  it("greeter: `serve` in one process, `call` from another; SIGTERM closes the server", () =>
    twoProcesses(blocks[0] ?? "", "SIGTERM"));

  it("repository README greeter: the same with SIGINT (Ctrl-C)", () =>
    twoProcesses(rootBlocks[0] ?? "", "SIGINT"));

  it("clock: a reconnecting client keeps answering across a kill -9 and restart", () =>
    clockAcrossRestart(blocks[1] ?? ""));

  it("channel layer: prints the echo", () => {
    const { file, dir } = materialize(blocks[2] ?? "");
    try {
      const out = execFileSync(process.execPath, ["--import", "tsx", file], {
        encoding: "utf8",
        timeout: 30_000,
      });
      assert.match(out, /echo: hello over uds max payload: 4194304/);
      assert.match(out, /closed: clean/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
