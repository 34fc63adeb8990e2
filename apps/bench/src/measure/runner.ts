import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { CaseSpec, MessageName } from "./case-spec.js";
import type { CodecResult } from "./codec-bench.js";
import {
  type GoClientResult,
  goClientArgv,
  goRunResult,
  goServerArgv,
  isGoTransport,
} from "./go-case.js";
import { machineBusyUs, otherCpuCores } from "./machine-cpu.js";
import { serverInThread } from "./plugins.js";
import type { RunResult } from "./run-result.js";
import type {
  CodecArgs,
  EndpointArgs,
  FromWorker,
  ToWorker,
  WorkerCapabilities,
} from "./worker.js";

/**
 * The orchestrator: for each case it spawns a server child (pinned to core 1) and a client
 * child (pinned to core 0), so client, server and the orchestrator never share a JIT or a heap.
 * A case whose server is a worker thread of the client (`serverInThread`) pins the client to
 * cores 0 and 1 (its server child idles). A go-* case runs the Go yardstick's server and client
 * (`go-case.ts`) in their place, pinned and sequenced the same way.
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
  /** The Go yardstick's binary (`go-build.ts`), for the go-* rows; unset when Go is not there. */
  goBinary?: string;
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
  /**
   * Its client worker can start beside the server and wait for the address (`awaitAddress`):
   * the client's start-up then overlaps the server's, about 0.3 s a case. A base tree built
   * before it could is asked by {@link workerCapabilities}.
   */
  clientAwaitsAddress?: boolean;
}

/** This tree's worker. */
export const CURRENT_BUILD: Build = {
  label: "current",
  workerFile: join(dirname(here), "..", fromSource ? "worker.ts" : "worker.js"),
  nodeArgs: fromSource ? ["--import", "tsx"] : [],
  clientAwaitsAddress: true,
};

/**
 * What the workers at `workerFile` support (their `capabilities` role); none for a worker that
 * does not know the role (built before it) or fails to start.
 */
export function workerCapabilities(
  workerFile: string,
  nodeArgs: readonly string[] = [],
): Partial<WorkerCapabilities> {
  const r = spawnSync(process.execPath, [...nodeArgs, workerFile, "capabilities"], {
    encoding: "utf8",
    timeout: 30_000,
  });
  if (r.status !== 0) return {};
  try {
    return JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}") as Partial<WorkerCapabilities>;
  } catch {
    return {};
  }
}

/**
 * How to start one child: its command line, and how it talks. `ipc`: a Node.js worker on the IPC
 * channel; `lines`: a Go yardstick process, the same messages as JSON lines on stdin/stdout.
 */
interface Launch {
  argv: readonly string[];
  talk: "ipc" | "lines";
  env?: Readonly<Record<string, string>>;
}

/** A Node.js worker of `build` in `role` (`worker.js <role> <json>`). */
function nodeLaunch(
  role: string,
  args: unknown,
  build: Build,
  cpuProfDir: string | undefined,
): Launch {
  const profile =
    cpuProfDir === undefined
      ? []
      : [
          "--cpu-prof",
          `--cpu-prof-dir=${cpuProfDir}`,
          `--cpu-prof-name=${build.label}-${role}-${Date.now()}.cpuprofile`,
        ];
  return {
    argv: [
      process.execPath,
      ...profile,
      ...build.nodeArgs,
      build.workerFile,
      role,
      JSON.stringify(args),
    ],
    talk: "ipc",
    ...(build.env === undefined ? {} : { env: build.env }),
  };
}

/** One child process with a message channel and a bounded wait for each expected message. */
class Worker {
  readonly child: ChildProcess;
  readonly #talk: Launch["talk"];
  #inbox: FromWorker[] = [];
  #waiter: (() => void) | undefined;
  #exited = false;
  #output = "";

  constructor(launch: Launch, core: number | string | undefined) {
    const [cmd, ...argv] =
      core === undefined ? launch.argv : ["taskset", "-c", String(core), ...launch.argv];
    this.#talk = launch.talk;
    this.child = spawn(cmd as string, argv, {
      stdio: launch.talk === "ipc" ? ["ignore", "pipe", "pipe", "ipc"] : ["pipe", "pipe", "pipe"],
      env: launch.env === undefined ? process.env : { ...process.env, ...launch.env },
    });
    const keep = (d: Buffer | string) => {
      this.#output = (this.#output + d.toString()).slice(-2000);
    };
    const receive = (m: unknown) => {
      this.#inbox.push(m as FromWorker);
      this.#waiter?.();
    };
    this.child.stderr?.on("data", keep);
    if (launch.talk === "ipc") {
      this.child.stdout?.on("data", keep);
      this.child.on("message", receive);
    } else {
      this.child.stdin?.on("error", () => {});
      const lines = createInterface({ input: this.child.stdout as NodeJS.ReadableStream });
      lines.on("line", (line) => {
        if (!line.startsWith("{")) return keep(`${line}\n`);
        try {
          receive(JSON.parse(line));
        } catch {
          keep(`${line}\n`);
        }
      });
    }
    this.child.on("exit", () => {
      this.#exited = true;
      this.#waiter?.();
    });
  }

  send(msg: ToWorker): void {
    if (this.#talk === "lines") {
      if (!this.#exited) this.child.stdin?.write(`${JSON.stringify(msg)}\n`);
    } else if (this.child.connected) this.child.send(msg);
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
    const isTcp = /^(tcp|bare-net-tcp|grpc-tcp|bare-grpc-js-tcp|go-grpc-tcp)$/.test(spec.transport);
    return isTcp ? "tcp:127.0.0.1:0" : join(this.dir, `${++this.#n}.sock`);
  }

  /**
   * The server's and the client's launch for `spec`: Node.js workers of `build`, or the Go
   * yardstick's programs for a go-* row (always this tree's, whatever `build`).
   */
  #launches(spec: CaseSpec, build: Build, args: EndpointArgs) {
    const prof = this.settings.cpuProfDir;
    if (!isGoTransport(spec.transport))
      return {
        server: nodeLaunch("server", args, build, prof),
        client: (address: string) => nodeLaunch("client", { ...args, address }, build, prof),
        early:
          build.clientAwaitsAddress === true
            ? nodeLaunch("client", { ...args, awaitAddress: true }, build, prof)
            : undefined,
      };
    const binary = this.settings.goBinary;
    if (binary === undefined) throw new Error(`${spec.key}: the Go yardstick is not built`);
    const samplesFile = join(this.dir, `${++this.#n}.samples`);
    return {
      server: { argv: goServerArgv(binary, spec, args.address), talk: "lines" } as Launch,
      client: (address: string): Launch => ({
        argv: goClientArgv(binary, spec, address, { ...args, samplesFile }),
        talk: "lines",
      }),
      early: undefined,
      samplesFile,
    };
  }

  /** Runs one case once, with fresh server and client processes of `build`. */
  async runCase(spec: CaseSpec, build: Build = CURRENT_BUILD): Promise<RunResult> {
    const { durationMs, warmupMs, pin, seed } = this.settings;
    const address = this.#address(spec);
    const args: EndpointArgs = { spec, address, seed, durationMs, warmupMs };
    const launch = this.#launches(spec, build, args);
    // A server thread of the client process (worker rows, postMessage) needs the second core.
    const clientCores = pin ? (serverInThread(spec.transport) ? "0,1" : 0) : undefined;
    const server = new Worker(launch.server, pin ? 1 : undefined);
    // Started beside the server when its build can wait for the address; else after "ready".
    let client = launch.early === undefined ? undefined : new Worker(launch.early, clientCores);
    try {
      const ready = await server.expect("ready", 20_000);
      if (client === undefined) client = new Worker(launch.client(ready.address), clientCores);
      else {
        await client.expect("waiting", 20_000);
        client.send({ t: "address", address: ready.address });
      }
      await client.expect("warmed", 20_000 + warmupMs * 4);
      server.send({ t: "cpu-start" });
      await server.expect("cpu-started", 10_000);
      const busyAtStart = machineBusyUs();
      const t0 = process.hrtime.bigint();
      client.send({ t: "go" });
      const { result } = await client.expect("result", 30_000 + durationMs * 4);
      const load = loadavg()[0];
      server.send({ t: "cpu-stop" });
      const cpu = await server.expect("cpu", 10_000);
      const busyAtEnd = machineBusyUs();
      const wallNs = Number(process.hrtime.bigint() - t0);
      const r =
        launch.samplesFile === undefined
          ? (result as Omit<RunResult, "server" | "serverCpuUsPerMsg">)
          : goRunResult(result as GoClientResult, launch.samplesFile);
      const own = cpu.userUs + cpu.systemUs + r.client.userUs + r.client.systemUs;
      const other = otherCpuCores(busyAtStart, busyAtEnd, own, wallNs);
      return {
        ...r,
        server: { userUs: cpu.userUs, systemUs: cpu.systemUs },
        serverCpuUsPerMsg: (cpu.userUs + cpu.systemUs) / r.count,
        ...(load === undefined ? {} : { loadAverage1m: load }),
        ...(other === undefined ? {} : { otherCpuCores: other }),
      };
    } catch (err) {
      // A client still waiting (its address, "go") exits now instead of after stop's grace.
      client?.send({ t: "exit" });
      throw err;
    } finally {
      server.send({ t: "exit" });
      await Promise.all([server.stop(3000), client?.stop(3000)]);
      if (!address.startsWith("tcp:")) rmSync(address, { force: true });
      if (launch.samplesFile !== undefined) rmSync(launch.samplesFile, { force: true });
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
    const w = new Worker(
      nodeLaunch("codec", args, build, undefined),
      this.settings.pin ? 0 : undefined,
    );
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
