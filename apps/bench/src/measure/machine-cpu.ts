/** The machine's busy CPU time, for telling whether other processes shared the CPUs. */
import { readFileSync } from "node:fs";

/** Microseconds of busy CPU time over all CPUs so far (`/proc/stat`), or undefined off Linux. */
export function machineBusyUs(): number | undefined {
  let line: string | undefined;
  try {
    line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0];
  } catch {
    return undefined;
  }
  // cpu  user nice system idle iowait irq softirq steal …, in USER_HZ ticks (100 per second on
  // every Linux the bench runs on: the kernel fixes it for /proc).
  const f = line?.split(/\s+/).slice(1).map(Number);
  if (f === undefined || f.length < 8 || f.some((n) => !Number.isFinite(n))) return undefined;
  const [user, nice, system, , , irq, softirq, steal] = f as number[];
  return (
    ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) *
    10_000
  );
}

/**
 * Cores' worth of CPU that processes other than the case's used in a window: the machine's busy
 * time between `startUs` and `endUs` (from {@link machineBusyUs}) minus `ownUs`, over `wallNs`.
 */
export function otherCpuCores(
  startUs: number | undefined,
  endUs: number | undefined,
  ownUs: number,
  wallNs: number,
): number | undefined {
  if (startUs === undefined || endUs === undefined || !(wallNs > 0)) return undefined;
  return Math.max(0, (endUs - startUs - ownUs) / (wallNs / 1000));
}
