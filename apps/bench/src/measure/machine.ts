import { spawnSync } from "node:child_process";
import os from "node:os";

/** What the numbers were measured on; printed first and stored in every report. */
export interface MachineInfo {
  node: string;
  v8: string;
  cpuModel: string;
  /** Logical cores available to this process. */
  cores: number;
  kernel: string;
  platform: string;
  arch: string;
  totalMemBytes: number;
  /** True when `taskset` ran here, so client and server can be pinned to cores 0 and 1. */
  tasksetAvailable: boolean;
  /** The {@link RUNTIME_ENV_VARS} this run had, as `NAME=value`; absent when none was set. */
  env?: string[];
}

/**
 * Environment variables that change how Node.js and libuv run the bench's processes (every
 * child inherits the bench's environment), so a report names those that were set. Measured
 * here: `UV_USE_IO_URING=1` on Node.js 20 (libuv 1.46, whose io_uring has a kernel thread
 * polling for file writes) cut a 1 GiB file upload over uds from 0.33 to 0.21 GB/s and raised
 * its CPU from 1.7 to 4.9 s per GiB (client side).
 */
export const RUNTIME_ENV_VARS = ["UV_USE_IO_URING", "UV_THREADPOOL_SIZE", "NODE_OPTIONS"] as const;

/** The {@link RUNTIME_ENV_VARS} set in `env`, as `NAME=value`, in that order. */
export function runtimeEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return RUNTIME_ENV_VARS.filter((k) => env[k] !== undefined && env[k] !== "").map(
    (k) => `${k}=${env[k]}`,
  );
}

/** ` env A=1 B=2` for a terminal header line, or "" when the run had none of them. */
export function envSuffix(m: Pick<MachineInfo, "env">): string {
  return m.env === undefined ? "" : `  env ${m.env.join(" ")}`;
}

/** Collects {@link MachineInfo}. */
export function machineInfo(): MachineInfo {
  const taskset = spawnSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" });
  const env = runtimeEnv();
  return {
    node: process.version,
    v8: process.versions.v8,
    cpuModel: os.cpus()[0]?.model.trim() ?? "unknown",
    cores: os.availableParallelism(),
    kernel: os.release(),
    platform: os.platform(),
    arch: os.arch(),
    totalMemBytes: os.totalmem(),
    tasksetAvailable: taskset.status === 0,
    ...(env.length === 0 ? {} : { env }),
  };
}

/** Pinning is on by default when taskset works and there are at least two cores. */
export function defaultPin(m: MachineInfo): boolean {
  return m.tasksetAvailable && m.cores >= 2;
}
