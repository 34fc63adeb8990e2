import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Durability } from "@nearwire/transfer";
import { coreLoopMs } from "../measure/core-speed.js";
import { buildGoBench, type GoBuild } from "../measure/go-build.js";
import { runGoSeed } from "./go-seed.js";
import type {
  BareArgs,
  ClientArgs,
  ClientResult,
  FloorArgs,
  FromChild,
  ProcessFigures,
  ServeArgs,
  ToChild,
} from "./transfer-child.js";
import {
  largeName,
  SEED_TIMING,
  sizeLabel,
  type TransferCase,
  type TransferProfile,
} from "./transfer-plan.js";

/**
 * The transfer mode's orchestrator: for each case a fresh server process (core 1 when pinned)
 * and a fresh client process (core 0), files in a temporary directory under the OS temp dir
 * (same disk as `cp`'s copy), memory-to-memory roots on tmpfs (`/dev/shm`); everything it
 * creates is removed at the end, and children are killed by PID.
 */

/** One measured case. */
export interface TransferRun {
  spec: TransferCase;
  /** Wall time, ns: the client's window (seed: until its last upload completed). */
  elapsedNs?: number;
  /** Transfers completed in the window (seed: uploads). */
  count?: number;
  /** Payload bytes moved. */
  bytes?: number;
  meanNs?: number;
  p99Ns?: number;
  client?: ProcessFigures;
  server?: ProcessFigures;
  error?: string;
}

/** The transfer section of a report. */
export interface TransferReport {
  profile: TransferProfile;
  startedAt: string;
  finishedAt: string;
  pin: boolean;
  /** Seed scenario: warm-up and window per case, ms. */
  seedTiming: { warmupMs: number; durationMs: number };
  /** Where files lived (`/tmp/...` on which filesystem) and where memory roots lived. */
  fileDir: string;
  memoryDir: string | undefined;
  /** 1-minute load average of the machine when the run began and ended (other processes). */
  loadAverage: { start: number; end: number };
  /**
   * Milliseconds of a fixed CPU-bound loop on each core (index = core) before the first case
   * and after the last (`core-speed.ts`), when the run is pinned and `taskset` runs.
   */
  coreLoopMs?: { start: number[]; end: number[] };
  /** Logical cores of the machine. */
  cores: number;
  /** The servers' `durable` option (`--durable`); absent in reports from before it: "full". */
  durable?: Durability;
  runs: TransferRun[];
}

/** Settings of {@link runTransferBench}. */
export interface TransferBenchSettings {
  profile: TransferProfile;
  pin: boolean;
  out: (line: string) => void;
  /** The servers' `durable` option (default "full", the transfer servers' own default). */
  durable?: Durability;
}

const here = fileURLToPath(import.meta.url);
const fromSource = here.endsWith(".ts");
const CHILD = join(dirname(here), fromSource ? "transfer-child.ts" : "transfer-child.js");
/**
 * Node flags of every transfer child process: tsx when run from source, plus the
 * whitespace-separated `NEARWIRE_BENCH_CHILD_NODE_ARGS` (e.g. `--cpu-prof --cpu-prof-dir=DIR`
 * for a profile of each side, which `NODE_OPTIONS` does not allow).
 */
const NODE_ARGS = [
  ...(fromSource ? ["--import", "tsx"] : []),
  ...(process.env.NEARWIRE_BENCH_CHILD_NODE_ARGS ?? "").split(/\s+/).filter((a) => a !== ""),
];
/** Longest a single case may take before its processes are killed. */
export const CASE_TIMEOUT_MS = 600_000;

class Child {
  readonly proc: ChildProcess;
  #inbox: FromChild[] = [];
  #wake: (() => void) | undefined;
  #exited = false;
  #output = "";

  constructor(role: string, args: unknown, core: number | undefined) {
    const argv = [...NODE_ARGS, CHILD, role, JSON.stringify(args)];
    const [cmd, full] =
      core === undefined
        ? [process.execPath, argv]
        : ["taskset", ["-c", String(core), process.execPath, ...argv]];
    this.proc = spawn(cmd, full, { stdio: ["ignore", "pipe", "pipe", "ipc"] });
    const keep = (d: Buffer) => {
      this.#output = (this.#output + d.toString()).slice(-2000);
    };
    this.proc.stdout?.on("data", keep);
    this.proc.stderr?.on("data", keep);
    this.proc.on("message", (m) => {
      this.#inbox.push(m as FromChild);
      this.#wake?.();
    });
    this.proc.on("exit", () => {
      this.#exited = true;
      this.#wake?.();
    });
  }

  send(m: ToChild): void {
    if (this.proc.connected) this.proc.send(m);
  }

  async expect<T extends FromChild["t"]>(t: T): Promise<Extract<FromChild, { t: T }>> {
    const deadline = Date.now() + CASE_TIMEOUT_MS;
    for (;;) {
      const i = this.#inbox.findIndex((m) => m.t === t || m.t === "error");
      if (i >= 0) {
        const m = this.#inbox.splice(i, 1)[0] as FromChild;
        if (m.t === "error") throw new Error(m.message.split("\n").slice(0, 3).join(" | "));
        return m as Extract<FromChild, { t: T }>;
      }
      if (this.#exited) throw new Error(`process exited before "${t}": ${this.#output.trim()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for "${t}"`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        this.#wake = () => {
          clearTimeout(timer);
          r();
        };
      });
    }
  }

  /**
   * Ends the process: closes its IPC channel (a child exits on that, writing a `--cpu-prof`
   * profile if asked), and kills it by PID if it has not exited within `graceMs`.
   */
  async stop(graceMs: number): Promise<void> {
    if (this.#exited || this.proc.pid === undefined) return;
    const exited = once(this.proc, "exit");
    if (this.proc.connected) this.proc.disconnect();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      exited,
      new Promise<void>((r) => {
        timer = setTimeout(r, graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (!this.#exited) this.proc.kill("SIGKILL");
  }
}

/** Writes `bytes` of random-looking data (a 16 MiB random block repeated). */
function makeSource(path: string, bytes: number): void {
  if (existsSync(path) && statSync(path).size === bytes) return;
  const block = randomBytes(16 * 1024 * 1024);
  const fd = openSync(path, "w");
  try {
    for (let done = 0; done < bytes; ) {
      const n = Math.min(block.length, bytes - done);
      writeSync(fd, block, 0, n, done);
      done += n;
    }
  } finally {
    closeSync(fd);
  }
}

/** Runs the cases in order; a failing case records its error and the run goes on. */
export async function runTransferBench(
  cases: readonly TransferCase[],
  settings: TransferBenchSettings,
): Promise<TransferReport> {
  const startedAt = new Date().toISOString();
  const loadAtStart = loadavg()[0] as number;
  const cores = availableParallelism();
  const loopAtStart = settings.pin ? coreLoopMs(cores) : undefined;
  const rig = new Rig(settings);
  const runs: TransferRun[] = [];
  try {
    for (const spec of cases) {
      const t0 = Date.now();
      const run: TransferRun = { spec };
      runs.push(run);
      try {
        if (spec.kind === "baseline") await runBaseline(rig, spec, run);
        else if (spec.kind === "seed" && spec.transport.startsWith("go-"))
          await runGoSeed(rig, spec, run);
        else await runTransfer(rig, spec, run);
      } catch (err) {
        run.error = (err as Error).message;
      } finally {
        await rig.stopAll();
      }
      settings.out(`  ${spec.key.padEnd(58)} ${describe(run)}  (${Date.now() - t0} ms)`);
    }
  } finally {
    await rig.dispose();
  }
  const loopAtEnd = loopAtStart === undefined ? undefined : coreLoopMs(cores);
  return {
    profile: settings.profile,
    startedAt,
    finishedAt: new Date().toISOString(),
    pin: settings.pin,
    seedTiming: rig.timing,
    fileDir: `${tmpdir()} (${fsType(tmpdir())})`,
    memoryDir: rig.memoryDir === undefined ? undefined : `/dev/shm (${fsType("/dev/shm")})`,
    loadAverage: { start: loadAtStart, end: loadavg()[0] as number },
    ...(loopAtStart === undefined || loopAtEnd === undefined
      ? {}
      : { coreLoopMs: { start: loopAtStart, end: loopAtEnd } }),
    cores,
    durable: settings.durable ?? "full",
    runs,
  };
}

/** The run's directories, source files and child processes. */
class Rig {
  readonly work = mkdtempSync(join(tmpdir(), "nearwire-bench-transfer-"));
  readonly memoryDir = existsSync("/dev/shm")
    ? mkdtempSync(join("/dev/shm", "nearwire-bench-transfer-"))
    : undefined;
  /** Served roots: on the run's temp directory, and on tmpfs when there is one. */
  readonly fileRoot: string;
  readonly memRoot: string | undefined;
  readonly timing: (typeof SEED_TIMING)[keyof typeof SEED_TIMING];
  readonly clientCore: number | undefined;
  readonly serverCore: number | undefined;
  readonly durable: Durability;
  readonly #children = new Set<Child>();
  #n = 0;

  constructor(settings: TransferBenchSettings) {
    this.timing = SEED_TIMING[settings.profile];
    [this.clientCore, this.serverCore] = settings.pin ? [0, 1] : [undefined, undefined];
    this.durable = settings.durable ?? "full";
    this.fileRoot = join(this.work, "root");
    mkdirSync(this.fileRoot);
    this.memRoot = this.memoryDir === undefined ? undefined : join(this.memoryDir, "root");
    if (this.memRoot !== undefined) mkdirSync(this.memRoot);
  }

  #go: GoBuild | undefined;

  /** The Go yardstick binary, built (or found cached) on first use. */
  goBinary(): GoBuild {
    this.#go ??= buildGoBench();
    return this.#go;
  }

  /** A fresh number for a socket name. */
  next(): number {
    return ++this.#n;
  }

  /** Starts a child process of `role` on `core`. */
  start(role: string, args: unknown, core: number | undefined): Child {
    const c = new Child(role, args, core);
    this.#children.add(c);
    return c;
  }

  /** Stops every child (see {@link Child.stop}): 2 s for a clean exit, then SIGKILL. */
  async stopAll(): Promise<void> {
    const children = [...this.#children];
    this.#children.clear();
    await Promise.all(children.map((c) => c.stop(2000)));
  }

  /** The source file of `bytes` random bytes (made once per size). */
  src(bytes: number): string {
    const p = join(this.work, `src-${sizeLabel(bytes)}.bin`);
    makeSource(p, bytes);
    return p;
  }

  async dispose(): Promise<void> {
    await this.stopAll();
    rmSync(this.work, { recursive: true, force: true });
    if (this.memoryDir !== undefined) rmSync(this.memoryDir, { recursive: true, force: true });
  }
}

/**
 * Runs a floor process (`floor`, `floor-sender` in transfer-child.ts) on `core` and records its
 * figures as `side`'s.
 */
async function runFloorProcess(
  rig: Rig,
  role: "floor" | "floor-sender",
  args: FloorArgs,
  core: number | undefined,
  side: "client" | "server",
  run: TransferRun,
): Promise<number> {
  const child = rig.start(role, args, core);
  await child.expect("warmed");
  child.send({ t: "go" });
  const result = (await child.expect("result")).result;
  run.elapsedNs = result.elapsedNs;
  run[side] = pick(result);
  run.count = 1;
  run.bytes = args.bytes;
  return result.bytes;
}

/**
 * A sender-floor row: one process on the client's core does an uploading client's own work on
 * the rows' source file (see `floorSender` in transfer-child.ts).
 */
async function runSenderFloor(
  rig: Rig,
  spec: Extract<TransferCase, { kind: "baseline" }>,
  run: TransferRun,
): Promise<void> {
  const args = { file: rig.src(spec.bytes), bytes: spec.bytes };
  const read = await runFloorProcess(rig, "floor-sender", args, rig.clientCore, "client", run);
  if (read !== spec.bytes) throw new Error(`sender floor read ${read} B, expected ${spec.bytes} B`);
}

/**
 * A receiver-floor row: one process on the server's core does a transfer server's own work on
 * the bytes (see `floor` in transfer-child.ts), into the file rows' or the memory rows' root.
 */
async function runFloor(
  rig: Rig,
  spec: Extract<TransferCase, { kind: "baseline" }>,
  run: TransferRun,
): Promise<void> {
  const root = spec.baseline === "floor-memory" ? rig.memRoot : rig.fileRoot;
  if (root === undefined) throw new Error("no tmpfs at /dev/shm for the memory floor");
  const file = join(root, "floor.bin");
  try {
    await runFloorProcess(rig, "floor", { file, bytes: spec.bytes }, rig.serverCore, "server", run);
    if (statSync(file).size !== spec.bytes)
      throw new Error(`floor file has ${statSync(file).size} B, expected ${spec.bytes} B`);
  } finally {
    rmSync(file, { force: true });
  }
}

/** A baseline row: `cp` (with or without sync) or a bare `node:net` pipeline. */
async function runBaseline(
  rig: Rig,
  spec: Extract<TransferCase, { kind: "baseline" }>,
  run: TransferRun,
): Promise<void> {
  if (spec.baseline === "floor-file" || spec.baseline === "floor-memory") {
    await runFloor(rig, spec, run);
    return;
  }
  if (spec.baseline === "floor-sender") {
    await runSenderFloor(rig, spec, run);
    return;
  }
  const { work, serverCore, clientCore } = rig;
  const start = rig.start.bind(rig);
  const from = rig.src(spec.bytes);
  const to = join(work, "baseline-copy.bin");
  rmSync(to, { force: true });
  try {
    if (spec.baseline === "cp" || spec.baseline === "cp-fsync") {
      const argv =
        spec.baseline === "cp"
          ? ["cp", [from, to]]
          : ["sh", ["-c", 'cp "$0" "$1" && sync "$1"', from, to]];
      const begin = process.hrtime.bigint();
      const r = spawnSync(argv[0] as string, argv[1] as string[], { stdio: "pipe" });
      run.elapsedNs = Number(process.hrtime.bigint() - begin);
      if (r.status !== 0)
        throw new Error(`${argv[0]} exited ${r.status}: ${String(r.stderr).trim()}`);
    } else {
      const address = join(work, `bare-${rig.next()}.sock`);
      const fsync = spec.baseline === "bare-net-uds-fsync";
      const server = start(
        "bare-serve",
        { address, file: to, fsync } satisfies BareArgs,
        serverCore,
      );
      await server.expect("ready");
      const client = start(
        "bare-client",
        { address, file: from, fsync } satisfies BareArgs,
        clientCore,
      );
      await client.expect("warmed");
      server.send({ t: "mark" });
      await server.expect("marked");
      const begin = process.hrtime.bigint();
      client.send({ t: "go" });
      const done = await server.expect("done");
      run.elapsedNs = Number(process.hrtime.bigint() - begin);
      run.server = done.figures;
      const result = (await client.expect("result")).result;
      run.client = pick(result);
      rmSync(address, { force: true });
    }
    run.count = 1;
    run.bytes = spec.bytes;
    if (statSync(to).size !== spec.bytes)
      throw new Error(`copy has ${statSync(to).size} B, expected ${spec.bytes} B`);
  } finally {
    rmSync(to, { force: true });
  }
}

/** A transfer row (upload, download, seed scenario) over a transport and codec. */
async function runTransfer(
  rig: Rig,
  spec: Exclude<TransferCase, { kind: "baseline" }>,
  run: TransferRun,
): Promise<void> {
  const { work, serverCore, clientCore, timing, fileRoot, memRoot } = rig;
  const start = rig.start.bind(rig);
  const src = rig.src.bind(rig);
  const memory = spec.kind === "seed" ? spec.tmpfs === true : spec.where === "memory";
  const root = memory ? memRoot : fileRoot;
  if (root === undefined) throw new Error("no tmpfs at /dev/shm for memory and -tmpfs rows");
  const address = spec.transport === "tcp" ? "tcp:127.0.0.1:0" : join(work, `t-${rig.next()}.sock`);
  let from = "";
  if (spec.kind !== "seed") {
    if (spec.direction === "upload" && spec.where === "file") from = src(spec.bytes);
    if (spec.direction === "download")
      for (let i = 0; i < spec.concurrency; i++) {
        const target = join(root, ...largeName(spec, i).split("/"));
        if (!existsSync(target) || statSync(target).size !== spec.bytes) {
          mkdirSync(dirname(target), { recursive: true });
          copyFileSync(src(spec.bytes), target);
        }
      }
  }
  const server = start(
    "serve",
    {
      transport: spec.transport,
      codec: spec.codec,
      address,
      root,
      durable: rig.durable,
      spec,
    } satisfies ServeArgs,
    serverCore,
  );
  const ready = await server.expect("ready");
  const client = start(
    "client",
    {
      spec,
      address: ready.address,
      src: from,
      dest: join(work, "dest"),
      warmupMs: timing.warmupMs,
      durationMs: timing.durationMs,
    } satisfies ClientArgs,
    clientCore,
  );
  await client.expect("warmed");
  server.send({ t: "mark" });
  await server.expect("marked");
  client.send({ t: "go" });
  const result = (await client.expect("result")).result;
  server.send({ t: "report" });
  run.server = (await server.expect("figures")).figures;
  run.client = pick(result);
  run.elapsedNs = result.elapsedNs;
  run.count = result.count;
  run.bytes = result.bytes;
  if (result.meanNs !== undefined) run.meanNs = result.meanNs;
  if (result.p99Ns !== undefined) run.p99Ns = result.p99Ns;
  if (!address.startsWith("tcp:")) rmSync(address, { force: true });
  if (spec.kind === "seed") rmSync(join(root, "seed"), { recursive: true, force: true });
  if (spec.kind !== "seed") {
    // Nothing of a row stays behind for the next: a 1 GiB file left in the tmpfs root held
    // memory the next row then took fresh from this VM's host (a memory upload after a memory
    // download ran at 0.28–0.31 GB/s with 3.3–3.7 s of server CPU, alone at 0.49–0.56 and
    // 1.8–2.1 s).
    for (let i = 0; i < spec.concurrency; i++) {
      rmSync(join(root, ...largeName(spec, i).split("/")), { force: true });
      if (spec.direction === "download" && spec.where === "file")
        rmSync(join(work, `dest-${i}`), { force: true });
    }
  }
}

function pick(r: ClientResult): ProcessFigures {
  return {
    cpuUs: r.cpuUs,
    ...(r.mainThreadCpuUs === undefined ? {} : { mainThreadCpuUs: r.mainThreadCpuUs }),
    rssAtMarkBytes: r.rssAtMarkBytes,
    peakRssBytes: r.peakRssBytes,
  };
}

/** The filesystem type of a directory (`df --output=fstype`), or "unknown". */
function fsType(dir: string): string {
  const r = spawnSync("df", ["--output=fstype", dir], { encoding: "utf8" });
  return r.status === 0 ? (r.stdout.trim().split("\n")[1]?.trim() ?? "unknown") : "unknown";
}

/** One line of progress for a run. */
export function describe(run: TransferRun): string {
  if (run.error !== undefined) return `FAILED ${run.error.slice(0, 200)}`;
  const s = (run.elapsedNs ?? 0) / 1e9;
  if (run.spec.kind === "seed")
    return `${((run.count ?? 0) / s).toFixed(1)} uploads/s  mean ${((run.meanNs ?? 0) / 1e6).toFixed(1)} ms  p99 ${((run.p99Ns ?? 0) / 1e6).toFixed(1)} ms`;
  return `${((run.bytes ?? 0) / s / 1e9).toFixed(3)} GB/s`;
}
