/**
 * What the transports' seeded fuzz tests share (uds, shm-ring, grpc-uds `test/fuzz.test.ts`):
 * the run's seed and size from the environment, the committed corpus, a batch that saves its
 * inputs to the corpus when it fails, a server's RSS, and a byte stream written in random
 * chunks. Each fuzz test keeps only its own input generator and its own health check.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Socket } from "node:net";
import { messageOf } from "@nearwire/core/transport-kit";
import { derivedPrng, prng, type Rng } from "./seeded.js";

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
    for (const c of options.cases) {
      if (known.has(key(c))) continue;
      known.add(key(c));
      saved.push({ ...c, name: `found: ${c.name}` });
    }
    writeFileSync(options.corpus, `${JSON.stringify({ cases: saved }, null, 2)}\n`);
    throw new Error(
      `fuzz failure at ${options.label} (NEARWIRE_FUZZ_SEED=${options.seed}): ${messageOf(err)}\ninputs:\n${options.cases.map((c) => `  ${JSON.stringify(c)}`).join("\n")}`,
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

/**
 * Resolves when `socket` closes; rejects after `ms` (default 5000): a server that neither serves
 * nor closes a connection fed garbage hangs it.
 */
export function closedWithin(socket: Socket, ms = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed) return resolve();
    const t = setTimeout(
      () => reject(new Error(`server did not close the connection in ${ms} ms`)),
      ms,
    );
    socket.once("close", () => {
      clearTimeout(t);
      resolve();
    });
  });
}

/** Options of {@link fuzzLoop}. */
export interface FuzzLoopOptions<C extends FuzzCase> {
  /** The run's seed and number of random inputs (see {@link fuzzRun}). */
  seed: number;
  iterations: number;
  /** Inputs fed at once. */
  batchSize: number;
  /** The corpus file: replayed first, appended to when a batch fails. */
  corpus: string;
  /** One random input drawn from `rng`, named `name` (`seed S iteration J`; add to it freely). */
  generate(rng: Rng, name: string): C;
  /** Feeds a batch and checks that the server still serves; throws when it does not. */
  feed(cases: C[], label: string): Promise<void>;
  /** The server's RSS in bytes, sampled before the run and after every batch. */
  rss(): number | Promise<number>;
}

/** What a {@link fuzzLoop} run did. */
export interface FuzzLoopResult {
  corpusCases: number;
  rssStartBytes: number;
  rssMaxBytes: number;
  /** The server's RSS after each batch: `[random inputs fed so far, bytes]`, in order. */
  rssSamples: Array<[inputs: number, bytes: number]>;
  ms: number;
}

/**
 * The fuzz run every transport's fuzz test makes: replays the corpus, then `iterations` random
 * inputs from `prng(seed)`, `batchSize` at a time, each batch through {@link fuzzBatch}.
 */
export async function fuzzLoop<C extends FuzzCase>(
  options: FuzzLoopOptions<C>,
): Promise<FuzzLoopResult> {
  const started = Date.now();
  const { seed, iterations, batchSize } = options;
  const batch = (cases: C[], label: string): Promise<void> =>
    fuzzBatch({
      cases,
      label,
      seed,
      corpus: options.corpus,
      run: (c) => options.feed(c, label),
    });
  const rssStartBytes = await options.rss();
  const corpus = readCorpus<C>(options.corpus);
  for (let i = 0; i < corpus.length; i += batchSize)
    await batch(corpus.slice(i, i + batchSize), `corpus ${i}`);
  let rssMaxBytes = Math.max(rssStartBytes, await options.rss());
  const rssSamples: Array<[number, number]> = [];
  const rng = prng(seed);
  for (let i = 0; i < iterations; i += batchSize) {
    const cases: C[] = [];
    for (let j = i; j < Math.min(i + batchSize, iterations); j++)
      cases.push(options.generate(rng, `seed ${seed} iteration ${j}`));
    await batch(cases, `iteration ${i}`);
    const rss = await options.rss();
    rssSamples.push([i + cases.length, rss]);
    rssMaxBytes = Math.max(rssMaxBytes, rss);
  }
  return {
    corpusCases: corpus.length,
    rssStartBytes,
    rssMaxBytes,
    rssSamples,
    ms: Date.now() - started,
  };
}

/** A case of a byte-stream fuzzer: the bytes written on one fresh connection, as hex. */
export interface HexCase extends FuzzCase {
  hex: string;
}

/** Options of {@link byteStreamFuzz}. */
export interface ByteStreamFuzzOptions {
  seed: number;
  iterations: number;
  batchSize: number;
  corpus: string;
  /** One random byte stream and its kind (counted in `kinds`). */
  input(rng: Rng): { kind: string; bytes: Uint8Array };
  /** Writes `bytes` on a fresh connection, split by `rng`, and ends it. */
  send(bytes: Buffer, rng: Rng): Promise<void>;
  /** Checks that the server still serves (a healthy client's call); throws when it does not. */
  healthy(label: string): Promise<void>;
  rss(): number | Promise<number>;
}

/**
 * {@link fuzzLoop} for a fuzzer whose inputs are byte streams (uds, grpc-uds): each input of a
 * batch goes on its own connection at once, split by its own derived PRNG (so a run does not
 * depend on timing), then the server must still serve. `kinds` counts the inputs by kind.
 */
export async function byteStreamFuzz(
  options: ByteStreamFuzzOptions,
): Promise<FuzzLoopResult & { kinds: Record<string, number> }> {
  const kinds: Record<string, number> = {};
  const result = await fuzzLoop<HexCase>({
    seed: options.seed,
    iterations: options.iterations,
    batchSize: options.batchSize,
    corpus: options.corpus,
    generate(rng, name) {
      const { kind, bytes } = options.input(rng);
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      return { name: `${name} (${kind})`, hex: Buffer.from(bytes).toString("hex") };
    },
    async feed(cases, label) {
      await Promise.all(
        cases.map((c, k) => options.send(Buffer.from(c.hex, "hex"), derivedPrng(options.seed, k))),
      );
      await options.healthy(label);
    },
    rss: options.rss,
  });
  return { ...result, kinds };
}
