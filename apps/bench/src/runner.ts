import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CaseSpec, MessageName } from "./case-spec.js";
import type { CodecResult } from "./codec-bench.js";
import { serverInThread } from "./plugins.js";
import type { RunResult } from "./run-result.js";
import type { CodecArgs, EndpointArgs, FromWorker, ToWorker } from "./worker.js";

/**
 * The orchestrator: for each case it spawns a server child (pinned to core 1) and a client
 * child (pinned to core 0), so client, server and the orchestrator never share a JIT or a heap.
 * A case whose server is a worker thread of the client (`serverInThread`) pins the client to
 * cores 0 and 1 (its server child idles).
 * It sequences warm-up → server CPU mark → measure → server CPU mark, and kills its children
 * by PID if a case hangs.
 */

/** Settings shared by every case of a run. */
export interface RunSettings {
  durationMs: number;
  warmupMs: number;
  pin: boolean;
  seed: number;
  /** When set, every server and client process writes a V8 CPU profile here (`--cpu-prof`). */
  cpuProfDir?: string;
}

/** A case's outcome: its runs (one per repeat) or the error that stopped it. */
export interface CaseResult {
  spec: CaseSpec;
  runs: RunResult[];
  /** Set when a run failed; the runs that completed stay. */
  error?: string;
}

const here = fileURLToPath(import.meta.url);
const fromSource = here.endsWith(".ts");

/**
 * Which build of nearwire a worker process runs: this tree, or the base tree of an A/B run
 * (`--ci`), whose `apps/bench/dist/worker.js` is spawned instead. `nodeArgs` go before the
 * script (the gate's self-test preloads its slowdown this way).
 */
export interface Build {
  label: "current" | "base";
  workerFile: string;
  nodeArgs: readonly string[];
  /** Extra environment of its processes. */
  env?: Readonly<Record<string, string>>;
}

/** This tree's worker. */
export const CURRENT_BUILD: Build = {
  label: "current",
  workerFile: join(dirname(here), fromSource ? "worker.ts" : "worker.js"),
  nodeArgs: fromSource ? ["--import", "tsx"] : [],
};

/** One child process with an IPC channel and a bounded wait for each expected message. */
class Worker {
  readonly child: ChildProcess;
  #inbox: FromWorker[] = [];
  #waiter: (() => void) | undefined;
  #exited = false;
  #output = "";

  constructor(
    role: string,
    args: unknown,
    core: number | string | undefined,
    build: Build,
    cpuProfDir: string | undefined,
  ) {
    const nodeArgs = [
      ...(cpuProfDir === undefined
        ? []
        : [
            "--cpu-prof",
            `--cpu-prof-dir=${cpuProfDir}`,
            `--cpu-prof-name=${build.label}-${role}-${Date.now()}.cpuprofile`,
          ]),
      ...build.nodeArgs,
      build.workerFile,
      role,
      JSON.stringify(args),
    ];
    const [cmd, argv] =
      core === undefined
        ? [process.execPath, nodeArgs]
        : ["taskset", ["-c", String(core), process.execPath, ...nodeArgs]];
    this.child = spawn(cmd, argv, {
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      env: build.env === undefined ? process.env : { ...process.env, ...build.env },
    });
    const keep = (d: Buffer) => {
      this.#output = (this.#output + d.toString()).slice(-2000);
    };
    this.child.stdout?.on("data", keep);
    this.child.stderr?.on("data", keep);
    this.child.on("message", (m) => {
      this.#inbox.push(m as FromWorker);
      this.#waiter?.();
    });
    this.child.on("exit", () => {
      this.#exited = true;
      this.#waiter?.();
    });
  }

  send(msg: ToWorker): void {
    if (this.child.connected) this.child.send(msg);
  }

  /** Waits for a message of type `t`; rejects on an error message, exit, or timeout. */
  async expect<T extends FromWorker["t"]>(
    t: T,
    timeoutMs: number,
  ): Promise<Extract<FromWorker, { t: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.#inbox.findIndex((m) => m.t === t || m.t === "error");
      if (i >= 0) {
        const m = this.#inbox.splice(i, 1)[0] as FromWorker;
        if (m.t === "error") throw new Error(m.message);
        return m as Extract<FromWorker, { t: T }>;
      }
      if (this.#exited) throw new Error(`worker exited before "${t}"${this.#tail()}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`timed out after ${timeoutMs} ms waiting for "${t}"${this.#tail()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#waiter = undefined;
    }
  }

  #tail(): string {
    const t = this.#output.trim();
    return t === "" ? "" : `: ${t.split("\n").slice(-3).join(" | ")}`;
  }

  /** Waits up to `graceMs` for exit, then SIGKILLs this child (by its PID). */
  async stop(graceMs: number): Promise<void> {
    if (this.#exited) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    const timer = setTimeout(() => {
      if (!this.#exited && this.child.pid !== undefined) process.kill(this.child.pid, "SIGKILL");
    }, graceMs);
    await exited;
    clearTimeout(timer);
  }
}

/** A private directory for the run's socket files, removed by {@link Orchestrator.close}. */
export class Orchestrator {
  readonly dir: string;
  #n = 0;
  constructor(readonly settings: RunSettings) {
    this.dir = join(tmpdir(), `nwb-${process.pid}`);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  #address(spec: CaseSpec): string {
    const isTcp = /^(tcp|bare-net-tcp|grpc-tcp|bare-grpc-js-tcp)$/.test(spec.transport);
    return isTcp ? "tcp:127.0.0.1:0" : join(this.dir, `${++this.#n}.sock`);
  }

  /** Runs one case once, with fresh server and client processes of `build`. */
  async runCase(spec: CaseSpec, build: Build = CURRENT_BUILD): Promise<RunResult> {
    const { durationMs, warmupMs, pin, seed } = this.settings;
    const address = this.#address(spec);
    const args: EndpointArgs = { spec, address, seed, durationMs, warmupMs };
    const prof = this.settings.cpuProfDir;
    const server = new Worker("server", args, pin ? 1 : undefined, build, prof);
    let client: Worker | undefined;
    try {
      const ready = await server.expect("ready", 20_000);
      // A server thread of the client process (worker rows, postMessage) needs the second core.
      client = new Worker(
        "client",
        { ...args, address: ready.address },
        pin ? (serverInThread(spec.transport) ? "0,1" : 0) : undefined,
        build,
        prof,
      );
      await client.expect("warmed", 20_000 + warmupMs * 4);
      server.send({ t: "cpu-start" });
      await server.expect("cpu-started", 10_000);
      client.send({ t: "go" });
      const { result } = await client.expect("result", 30_000 + durationMs * 4);
      server.send({ t: "cpu-stop" });
      const cpu = await server.expect("cpu", 10_000);
      const r = result as Omit<RunResult, "server" | "serverCpuUsPerMsg">;
      return {
        ...r,
        server: { userUs: cpu.userUs, systemUs: cpu.systemUs },
        serverCpuUsPerMsg: (cpu.userUs + cpu.systemUs) / r.count,
      };
    } finally {
      server.send({ t: "exit" });
      await Promise.all([server.stop(3000), client?.stop(3000)]);
      if (!address.startsWith("tcp:")) rmSync(address, { force: true });
    }
  }

  /** Runs the tinybench codec benchmarks of one codec in a child process. */
  async runCodec(
    codec: string,
    messages: MessageName[],
    timeMs: number,
    build: Build = CURRENT_BUILD,
  ): Promise<CodecResult[]> {
    const args: CodecArgs = { codec, messages, timeMs, seed: this.settings.seed };
    const w = new Worker("codec", args, this.settings.pin ? 0 : undefined, build, undefined);
    try {
      const { result } = await w.expect("result", 60_000 + timeMs * messages.length * 20);
      return (result as { results: CodecResult[] }).results;
    } finally {
      await w.stop(3000);
    }
  }

  /** Removes the run's socket directory. */
  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
