/**
 * What the transports' seeded fuzz tests share (uds, shm-ring, grpc-uds `test/fuzz.test.ts`):
 * the run's seed and size from the environment, the committed corpus, a batch that saves its
 * inputs to the corpus when it fails, a server's RSS, and a byte stream written in random
 * chunks. Each fuzz test keeps only its own input generator and its own health check.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Socket } from "node:net";
import type { Rng } from "./seeded.js";

/**
 * `NEARWIRE_FUZZ_ITERATIONS` (default `defaultIterations`) and `NEARWIRE_FUZZ_SEED` (default
 * 0x6e77): what a fuzz run does. `pnpm fuzz` sets 100,000 iterations.
 */
export function fuzzRun(defaultIterations: number): { iterations: number; seed: number } {
  return {
    iterations: Number(process.env.NEARWIRE_FUZZ_ITERATIONS ?? defaultIterations),
    seed: Number(process.env.NEARWIRE_FUZZ_SEED ?? 0x6e77) >>> 0,
  };
}

/** One named input of a fuzz corpus (`test/fuzz-corpus/<transport>.json`: `{ cases: [...] }`). */
export interface FuzzCase {
  name: string;
}

/** The cases of a corpus file. */
export function readCorpus<C extends FuzzCase>(path: string): C[] {
  return (JSON.parse(readFileSync(path, "utf8")) as { cases: C[] }).cases;
}

/** Options of {@link fuzzBatch}. */
export interface FuzzBatchOptions<C extends FuzzCase> {
  /** The inputs of this batch. */
  cases: C[];
  /** Where in the run (`corpus 16`, `iteration 320`), for the failure message. */
  label: string;
  /** The run's seed, for the failure message. */
  seed: number;
  /** The corpus file a failing batch's new inputs are appended to (named `found: …`). */
  corpus: string;
  /** Runs the batch: feeds every case, then checks the server is healthy. */
  run(cases: C[]): Promise<void>;
}

/**
 * Runs one batch. When it fails, its inputs that the corpus does not hold yet are appended to it
 * (so that the next run replays them first), and the error names the seed and every input.
 */
export async function fuzzBatch<C extends FuzzCase>(options: FuzzBatchOptions<C>): Promise<void> {
  try {
    await options.run(options.cases);
  } catch (err) {
    const key = (c: C): string => JSON.stringify({ ...c, name: "" });
    const saved = readCorpus<C>(options.corpus);
    const known = new Set(saved.map(key));
    for (const c of options.cases)
      if (!known.has(key(c))) saved.push({ ...c, name: `found: ${c.name}` });
    writeFileSync(options.corpus, `${JSON.stringify({ cases: saved }, null, 2)}\n`);
    throw new Error(
      `fuzz failure at ${options.label} (NEARWIRE_FUZZ_SEED=${options.seed}): ${(err as Error).message}\ninputs:\n${options.cases.map((c) => `  ${JSON.stringify(c)}`).join("\n")}`,
    );
  }
}

/** Resident set size of process `pid`, bytes (Linux `/proc/<pid>/status`). */
export function processRssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0) * 1024;
}

/**
 * Writes `bytes` to a connected socket in chunks of 1–64 bytes, yielding to the event loop after
 * about one in four, so the server sees the stream split at random boundaries (drawn from `rng`).
 */
export async function writeInRandomChunks(
  sock: Socket,
  bytes: Uint8Array,
  rng: Rng,
): Promise<void> {
  let at = 0;
  while (at < bytes.length && !sock.destroyed) {
    const n = 1 + rng.int(Math.min(bytes.length - at, 64));
    sock.write(bytes.subarray(at, at + n));
    at += n;
    if (rng.int(4) === 0) await new Promise((r) => setImmediate(r));
  }
}
