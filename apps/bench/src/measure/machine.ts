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
}

/** Collects {@link MachineInfo}. */
export function machineInfo(): MachineInfo {
  const taskset = spawnSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" });
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
  };
}

/** Pinning is on by default when taskset works and there are at least two cores. */
export function defaultPin(m: MachineInfo): boolean {
  return m.tasksetAvailable && m.cores >= 2;
}
