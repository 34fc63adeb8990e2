import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { GO_INSTALL_HINT, type GoBuild } from "../measure/go-build.js";
import type { TransferRun } from "./transfer-bench.js";
import { CASE_TIMEOUT_MS } from "./transfer-bench.js";
import type { TransferCase } from "./transfer-plan.js";

/** What a Go seed row takes from the transfer run's rig. */
export interface GoSeedRig {
  readonly work: string;
  readonly serverCore: number | undefined;
  readonly clientCore: number | undefined;
  readonly timing: { warmupMs: number; durationMs: number };
  next(): number;
  goBinary(): GoBuild;
}

/**
 * The published scenario in Go net/rpc (`go/netrpc_*.go`), built once per run with the `go` on
 * PATH: the server (fsync per commit unless `go-netrpc-nofsync`) on the server core, the client
 * with its 10 connections on the client core, driven like the Node.js rows (warm-up, then the
 * window between the server's CPU marks).
 */
export async function runGoSeed(
  rig: GoSeedRig,
  spec: Extract<TransferCase, { kind: "seed" }>,
  run: TransferRun,
): Promise<void> {
  const built = rig.goBinary();
  if ("failed" in built)
    throw new Error(`Go yardstick not built: ${built.failed} (${GO_INSTALL_HINT})`);
  const root = join(rig.work, `go-root-${rig.next()}`);
  mkdirSync(root);
  const address = join(rig.work, `go-${rig.next()}.sock`);
  const pinned = (core: number | undefined, argv: string[]) =>
    core === undefined ? argv : ["taskset", "-c", String(core), ...argv];
  const server = new GoProcess(
    pinned(rig.serverCore, [
      built.binary,
      "netrpc-server",
      "-listen",
      address,
      "-root",
      root,
      `-fsync=${spec.transport !== "go-netrpc-nofsync"}`,
      "-control",
    ]),
  );
  const client = new GoProcess(
    pinned(rig.clientCore, [
      built.binary,
      "netrpc-client",
      "-target",
      address,
      "-clients",
      String(spec.clients),
      "-size",
      String(spec.fileBytes),
      "-warmup",
      `${rig.timing.warmupMs}ms`,
      "-duration",
      `${rig.timing.durationMs}ms`,
      "-control",
    ]),
  );
  try {
    server.start();
    await server.expect("ready");
    client.start();
    await client.expect("warmed");
    server.send({ t: "cpu-start" });
    await server.expect("cpu-started");
    client.send({ t: "go" });
    const { result } = (await client.expect("result")) as unknown as { result: GoSeedResult };
    server.send({ t: "cpu-stop" });
    const cpu = (await server.expect("cpu")) as unknown as {
      userUs: number;
      systemUs: number;
      peakRssBytes: number;
    };
    run.elapsedNs = result.elapsedNs;
    run.count = result.uploads;
    run.bytes = result.uploads * spec.fileBytes;
    run.meanNs = result.meanNs;
    run.p99Ns = result.p99Ns;
    run.client = { cpuUs: result.cpuUs, rssAtMarkBytes: 0, peakRssBytes: result.peakRssBytes };
    run.server = {
      cpuUs: cpu.userUs + cpu.systemUs,
      rssAtMarkBytes: 0,
      peakRssBytes: cpu.peakRssBytes,
    };
  } finally {
    client.kill();
    server.send({ t: "exit" });
    await server.exited(2000);
    rmSync(root, { recursive: true, force: true });
    rmSync(address, { force: true });
  }
}

/** What `nearwire-go-bench netrpc-client` reports for its window. */
interface GoSeedResult {
  uploads: number;
  elapsedNs: number;
  meanNs: number;
  p99Ns: number;
  cpuUs: number;
  peakRssBytes: number;
}

/**
 * A Go yardstick process under the -control protocol (JSON lines on stdin/stdout,
 * `go/control.go`), started by `start()`.
 */
class GoProcess {
  #proc: ChildProcess | undefined;
  #lines: { t: string; message?: string }[] = [];
  #wake: (() => void) | undefined;
  #exited = false;
  #stderr = "";

  constructor(private readonly argv: string[]) {}

  start(): void {
    const [cmd, ...args] = this.argv as [string, ...string[]];
    const proc = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"] });
    this.#proc = proc;
    let buf = "";
    proc.stdout?.setEncoding("utf8").on("data", (d: string) => {
      buf += d;
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        try {
          this.#lines.push(JSON.parse(line) as { t: string });
        } catch {
          // not a control line
        }
        this.#wake?.();
      }
    });
    proc.stderr?.setEncoding("utf8").on("data", (d: string) => {
      this.#stderr = (this.#stderr + d).slice(-2000);
    });
    proc.on("exit", () => {
      this.#exited = true;
      this.#wake?.();
    });
  }

  send(m: { t: string }): void {
    if (this.#proc?.stdin?.writable === true) this.#proc.stdin.write(`${JSON.stringify(m)}\n`);
  }

  async expect(t: string): Promise<{ t: string }> {
    const deadline = Date.now() + CASE_TIMEOUT_MS;
    for (;;) {
      const i = this.#lines.findIndex((m) => m.t === t || m.t === "error");
      if (i >= 0) {
        const m = this.#lines.splice(i, 1)[0] as { t: string; message?: string };
        if (m.t === "error") throw new Error(`Go yardstick: ${m.message ?? ""}`);
        return m;
      }
      if (this.#exited) throw new Error(`Go yardstick exited before "${t}": ${this.#stderr}`);
      if (Date.now() > deadline) throw new Error(`Go yardstick: no "${t}" in time`);
      await new Promise<void>((r) => {
        this.#wake = r;
        setTimeout(r, 1000).unref();
      });
      this.#wake = undefined;
    }
  }

  /** Waits up to `graceMs` for the process to end, then kills it (SIGKILL, by its PID). */
  async exited(graceMs: number): Promise<void> {
    const end = Date.now() + graceMs;
    while (!this.#exited && this.#proc !== undefined && Date.now() < end)
      await new Promise((r) => setTimeout(r, 20));
    this.kill();
  }

  kill(): void {
    if (this.#proc !== undefined && !this.#exited) this.#proc.kill("SIGKILL");
  }
}
