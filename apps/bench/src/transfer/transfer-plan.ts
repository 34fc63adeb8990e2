/**
 * The cases of the transfer mode (`@nearwire/transfer`): which runs a profile makes.
 *
 * - `seed`: the published scenario — 2 MiB uploads from 10 concurrent clients (10 connections),
 *   for a window after a warm-up: uploads/s, mean and p99 latency, MB/s, peak RSS of both sides;
 *   `-tmpfs` rows with the server's root on tmpfs (no disk: what the service costs by itself).
 * - `large`: one big transfer one way (upload or download), `file` (file to file, through the
 *   page cache of the same disk) or `memory` (a generated source or a discarding sink on the
 *   client, downloads with `lendChunks`; the server's root on tmpfs: no disk anywhere): GB/s, CPU
 *   of both sides, RSS growth.
 * - `many`: `concurrency` transfers of `bytes` each at once on one connection (RSS growth).
 * - `baseline`: `cp` (and `cp` + fsync) of the same file on the same disk, and a bare
 *   `node:net` + `stream.pipeline` copy over a Unix socket between two processes.
 *
 * Case keys are `transfer-<kind>:<transport>/<codec>/<what>`, matched by `--filter`.
 */

/** One run of the transfer mode. */
export type TransferCase =
  | {
      kind: "seed";
      key: string;
      transport: string;
      codec: string;
      clients: number;
      fileBytes: number;
      /** The server's root on tmpfs (/dev/shm) instead of the file directory. */
      tmpfs?: boolean;
    }
  | {
      kind: "large" | "many";
      key: string;
      transport: string;
      codec: string;
      direction: "upload" | "download";
      where: "file" | "memory";
      bytes: number;
      concurrency: number;
      /** Bytes per chunk (default 64 KiB, the package's default). */
      chunkBytes?: number;
    }
  | {
      kind: "baseline";
      key: string;
      baseline: Baseline;
      bytes: number;
    };

/**
 * The yardsticks of the large rows: `cp` (with a sync) and a bare `node:net` pipeline, file to
 * file; `floor-file` / `floor-memory`, a receiving server's own work per byte without a transfer
 * (CRC-32C, SHA-256, writes and syncs into the file rows' or the memory rows' root);
 * `floor-sender`, an uploading client's own work per byte (reads of the rows' source file,
 * CRC-32C, SHA-256, a copy per chunk).
 */
export type Baseline =
  | "cp"
  | "cp-fsync"
  | "bare-net-uds"
  | "bare-net-uds-fsync"
  | "floor-file"
  | "floor-memory"
  | "floor-sender";

/** How much a profile measures. */
export type TransferProfile = "small" | "default" | "full";

/** The transports and codecs a plan may use (what was found at run time). */
export interface TransferPlanInput {
  transports: readonly string[];
  codecs: readonly string[];
}

/**
 * Warm-up and window of the published scenario (`seed` cases), per profile (ms). The server's
 * code is still being optimized one second in (V8 compiles on a helper thread, which shares the
 * server's core): after 1 s of warm-up the window ran 8–12 % fewer uploads/s than after 4 s
 * (A/B on this machine); 3 s reaches the steady state. The small profile (the default
 * `nearwire-bench` run) keeps its short one: there the table is a smoke check.
 */
export const SEED_TIMING: Record<TransferProfile, { warmupMs: number; durationMs: number }> = {
  small: { warmupMs: 300, durationMs: 700 },
  default: { warmupMs: 3000, durationMs: 2000 },
  full: { warmupMs: 3000, durationMs: 3000 },
};

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Size label: `64MiB`, `1GiB`, `2MiB`. */
export function sizeLabel(bytes: number): string {
  if (bytes >= GiB && bytes % GiB === 0) return `${bytes / GiB}GiB`;
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB}MiB`;
  return `${bytes}B`;
}

/**
 * The shm-ring wait modes the transfer mode uses. `spin` busy-polls one core per connection
 * end: with 10 connections (the published scenario) on a small machine it measures the scheduler, so it is
 * used for the one-connection large transfers only.
 */
const SEED_TRANSPORTS: Record<TransferProfile, readonly string[]> = {
  small: ["uds", "shm-ring-adaptive"],
  default: ["uds", "grpc-uds", "shm-ring-adaptive"],
  full: ["uds", "tcp", "grpc-uds", "shm-ring-adaptive", "shm-ring-park"],
};
/**
 * The Go yardstick of the published scenario (`apps/bench/go/netrpc_*.go`: net/rpc with gob,
 * one call per 64 KiB chunk, CRC-32C, SHA-256, rename; with and without fsync), run when a Go
 * toolchain is found. Not in the small profile (the default nearwire-bench run).
 */
export const GO_SEED_TRANSPORTS = ["go-netrpc", "go-netrpc-nofsync"] as const;
const GO_SEED_PROFILES: readonly TransferProfile[] = ["default", "full"];
/** Transports of the seed rows with the server's root on tmpfs (raw codec), per profile. */
const TMPFS_SEED_TRANSPORTS: Record<TransferProfile, readonly string[]> = {
  small: [],
  default: ["uds", "shm-ring-adaptive"],
  full: ["uds", "shm-ring-adaptive"],
};

const SEED_CODECS: Record<TransferProfile, readonly string[]> = {
  small: ["raw"],
  default: ["json", "msgpack", "protobuf", "raw"],
  full: ["json", "msgpack", "protobuf", "flatbuffers", "raw"],
};
const LARGE_TRANSPORTS: Record<TransferProfile, readonly string[]> = {
  small: ["uds", "shm-ring-adaptive"],
  default: ["uds", "grpc-uds", "shm-ring-spin", "shm-ring-adaptive"],
  full: ["uds", "tcp", "grpc-uds", "shm-ring-spin", "shm-ring-adaptive", "shm-ring-park"],
};
/** Codecs of the memory-to-memory upload (what codec choice costs for bulk data). */
const BULK_CODECS: Record<TransferProfile, readonly string[]> = {
  small: ["json", "raw"],
  default: ["json", "msgpack", "protobuf", "raw"],
  full: ["json", "msgpack", "protobuf", "flatbuffers", "raw"],
};
const LARGE_BYTES: Record<TransferProfile, number> = {
  small: 64 * MiB,
  default: GiB,
  full: GiB,
};
const MANY: Record<TransferProfile, { concurrency: number; bytes: number } | undefined> = {
  small: undefined,
  default: { concurrency: 10, bytes: 100 * MiB },
  full: { concurrency: 10, bytes: 100 * MiB },
};
/** Transports of the ten-at-once rows: every transport, as the RSS limit holds for each. */
const MANY_TRANSPORTS: Record<TransferProfile, readonly string[]> = {
  small: [],
  default: ["uds", "grpc-uds", "shm-ring-adaptive"],
  full: ["uds", "grpc-uds", "shm-ring-adaptive"],
};

/** Transports of the rows with 1 MiB chunks (what the per-chunk cost is). */
const BIG_CHUNK_TRANSPORTS: Record<TransferProfile, readonly string[]> = {
  small: [],
  default: ["uds", "shm-ring-adaptive"],
  full: ["uds", "grpc-uds", "shm-ring-adaptive"],
};
const BIG_CHUNK_BYTES = 1024 * 1024;

/** The bulk codec of the file-to-file rows (the cheapest one for bytes). */
const FILE_CODEC = "raw";

/** Builds the cases of a profile from what was found; `keep` filters by key. */
export function transferPlan(
  profile: TransferProfile,
  input: TransferPlanInput,
  keep: (c: TransferCase) => boolean = () => true,
): TransferCase[] {
  const has = (t: string) => input.transports.includes(t);
  const codec = (c: string) => input.codecs.includes(c);
  const out: TransferCase[] = [];
  const fileBytes = 2 * MiB;
  for (const transport of SEED_TRANSPORTS[profile].filter(has))
    for (const c of SEED_CODECS[profile].filter(codec))
      out.push({
        kind: "seed",
        key: `transfer-seed:${transport}/${c}/${sizeLabel(fileBytes)}x10`,
        transport,
        codec: c,
        clients: 10,
        fileBytes,
      });
  if (codec(FILE_CODEC))
    for (const transport of TMPFS_SEED_TRANSPORTS[profile].filter(has))
      out.push({
        kind: "seed",
        key: `transfer-seed:${transport}/${FILE_CODEC}/${sizeLabel(fileBytes)}x10-tmpfs`,
        transport,
        codec: FILE_CODEC,
        clients: 10,
        fileBytes,
        tmpfs: true,
      });
  if (GO_SEED_PROFILES.includes(profile))
    for (const transport of GO_SEED_TRANSPORTS.filter(has))
      out.push({
        kind: "seed",
        key: `transfer-seed:${transport}/gob/${sizeLabel(fileBytes)}x10`,
        transport,
        codec: "gob",
        clients: 10,
        fileBytes,
      });
  const bytes = LARGE_BYTES[profile];
  const size = sizeLabel(bytes);
  const large = (
    transport: string,
    c: string,
    direction: "upload" | "download",
    where: "file" | "memory",
    chunkBytes?: number,
  ): TransferCase => ({
    kind: "large",
    key: `transfer-large:${transport}/${c}/${where}-${direction}-${size}${chunkBytes === undefined ? "" : `-chunk${sizeLabel(chunkBytes)}`}`,
    transport,
    codec: c,
    direction,
    where,
    bytes,
    concurrency: 1,
    ...(chunkBytes === undefined ? {} : { chunkBytes }),
  });
  const baselines = [
    "cp",
    "cp-fsync",
    "bare-net-uds",
    "bare-net-uds-fsync",
    "floor-file",
    "floor-memory",
    "floor-sender",
  ] as const;
  for (const b of baselines)
    out.push({ kind: "baseline", key: `transfer-baseline:${b}/${size}`, baseline: b, bytes });
  for (const transport of LARGE_TRANSPORTS[profile].filter(has)) {
    if (codec(FILE_CODEC)) {
      out.push(large(transport, FILE_CODEC, "upload", "file"));
      out.push(large(transport, FILE_CODEC, "download", "file"));
      if (profile !== "small") out.push(large(transport, FILE_CODEC, "download", "memory"));
    }
    for (const c of BULK_CODECS[profile].filter(codec))
      out.push(large(transport, c, "upload", "memory"));
    if (BIG_CHUNK_TRANSPORTS[profile].includes(transport) && codec(FILE_CODEC)) {
      out.push(large(transport, FILE_CODEC, "upload", "file", BIG_CHUNK_BYTES));
      out.push(large(transport, FILE_CODEC, "upload", "memory", BIG_CHUNK_BYTES));
    }
  }
  const many = MANY[profile];
  if (many !== undefined && codec(FILE_CODEC)) {
    const what = `${many.concurrency}x${sizeLabel(many.bytes)}`;
    for (const transport of MANY_TRANSPORTS[profile].filter(has))
      for (const direction of ["upload", "download"] as const)
        out.push({
          kind: "many",
          key: `transfer-many:${transport}/${FILE_CODEC}/file-${direction}-${what}`,
          transport,
          codec: FILE_CODEC,
          direction,
          where: "file",
          bytes: many.bytes,
          concurrency: many.concurrency,
        });
  }
  // Baselines are measured whenever a row they are the yardstick of is: the memory floor
  // beside a memory-to-memory row, the others beside a file-to-file row.
  const kept = out.filter((c) => c.kind !== "baseline" && keep(c));
  const any = (where: "file" | "memory") =>
    kept.some((c) => (c.kind === "large" || c.kind === "many") && c.where === where);
  const yardstick = (b: Baseline) => any(b === "floor-memory" ? "memory" : "file");
  return [
    ...out.filter((c) => c.kind === "baseline" && (yardstick(c.baseline) || keep(c))),
    ...kept,
  ];
}

/** The name a large or many run transfers as (`i`: which of the concurrent transfers). */
export function largeName(spec: TransferCase, i: number): string {
  return spec.kind === "many" ? `many/${i}.bin` : "large/big.bin";
}
