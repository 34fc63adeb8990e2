/**
 * How fast each core runs a fixed CPU-bound loop right now. On a VM one core can run 30 % slower
 * than the other for minutes (measured here: 137 ms on core 1 against 150 ms on core 0 before a
 * transfer run, 183–191 against 138–143 ms after it), and a report cannot otherwise tell a slow
 * core from slow code.
 */
import { spawnSync } from "node:child_process";

/** Steps of the loop (about 100 ms on a current x86 core). */
const LOOP_STEPS = 2e8;
/** Times the loop runs per core; the fastest counts (a preemption only slows one down). */
const LOOP_RUNS = 3;

/** The loop, run by a child pinned to one core; prints the fastest run in ms. */
const LOOP_SOURCE = `let best = Infinity, x = 0;
for (let r = 0; r < ${LOOP_RUNS}; r++) {
  const t0 = performance.now();
  for (let i = 0; i < ${LOOP_STEPS}; i++) x += i & 7;
  best = Math.min(best, performance.now() - t0);
}
console.log(x > 0 ? best.toFixed(1) : "NaN");`;

/** What {@link coreLoopMs} describes in words (for a report). */
export const CORE_LOOP_WHAT = `a fixed CPU-bound loop (${LOOP_STEPS / 1e8}·10^8 additions, fastest of ${LOOP_RUNS}, in a process pinned to the core)`;

/**
 * Milliseconds the loop takes on each of `cores` (0 … cores − 1), each in a child pinned there
 * with `taskset`; undefined where that cannot run (no taskset, not Linux).
 */
export function coreLoopMs(cores: number): number[] | undefined {
  const out: number[] = [];
  for (let core = 0; core < cores; core++) {
    const r = spawnSync("taskset", ["-c", String(core), process.execPath, "-e", LOOP_SOURCE], {
      encoding: "utf8",
      timeout: 30_000,
    });
    const ms = Number(r.stdout?.trim());
    if (r.status !== 0 || !(ms > 0)) return undefined;
    out.push(ms);
  }
  return out;
}
