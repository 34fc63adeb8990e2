import { isGoTransport } from "../measure/go-case.js";
import { fmtCount, fmtNs } from "./format.js";
import { REFERENCE_FIGURES } from "./reference.js";
import { median } from "./stats.js";
import type { BenchReport, CaseSummary } from "./summary.js";
import type { Table } from "./table.js";

/**
 * "The published Go tables, reproduced": this run's figures laid out in the shape of the
 * published Go tables (`REFERENCE_FIGURES`), beside the published numbers. The
 * published columns come from other hardware and another language: they sit next to the
 * measured ones for orientation, and no ratio between the two is ever taken.
 */
export interface SeedComparison {
  /** UDS vs gRPC over UDS vs a shared-memory ring: p50, p99, QPS with many calls in flight. */
  ipc: Table;
  /** The tuned SPSC ring: mean, p99, msgs/s, memory. */
  spsc: Table;
  /**
   * The published Go ring between processes vs an in-process channel, reproduced with
   * worker threads (rings in a SharedArrayBuffer, and Node's own channel, postMessage).
   */
  worker: Table;
}

/**
 * The published Go figures (64 B messages) of a shared-memory SPSC ring between
 * processes and an in-process SPSC channel.
 */
const WORKER_SEED = {
  ring: {
    what: "SPSC ring, processes",
    mean: "1.83 µs",
    p99: "2.98 µs",
    rate: "4.91 M",
    memory: "~1 MB fixed",
  },
  channel: {
    what: "SPSC channel, in process",
    mean: "2.47 µs",
    p99: "4.12 µs",
    rate: "3.82 M",
    memory: "~2 MB heap",
  },
} as const;

/** Rows of the worker table: [case transport, codec, seed figure beside it, fixed memory]. */
const WORKER_ROWS: readonly [string, "channel" | "ring", string][] = [
  ["bare-postmessage", "channel", "none (a structured clone per message)"],
  ["worker-spin-channel", "channel", "8 MiB + 4 KiB SharedArrayBuffer"],
  ["worker-park-channel", "channel", "8 MiB + 4 KiB SharedArrayBuffer"],
  ["worker-adaptive-channel", "channel", "8 MiB + 4 KiB SharedArrayBuffer"],
  ["worker-spin", "channel", "8 MiB + 4 KiB SharedArrayBuffer"],
  ["worker-park", "channel", "8 MiB + 4 KiB SharedArrayBuffer"],
  ["shm-ring-spin-channel", "ring", "8 MiB + 4 KiB shared segment"],
];

/** Shared memory of one shm-ring connection with the package defaults (2 × 4 MiB rings + a 4 KiB header page); the bench does not change them. */
export const SHM_SEGMENT_BYTES = 2 * 4 * 1024 * 1024 + 4096;

/** The published payload of the IPC table, in bytes. */
const PUBLISHED_PAYLOAD = 256;

/**
 * Rows of the IPC table by published figure: nearwire's, the hand-written Node.js baselines', and
 * the Go yardstick's measured in this run on this machine (`go-*`, when Go is installed).
 */
const IPC_GROUPS: readonly { ref: string; transports: readonly string[] }[] = [
  { ref: "uds", transports: ["uds", "bare-net-uds", "go-uds"] },
  {
    ref: "grpc-uds",
    transports: [
      "grpc-uds",
      "bare-grpc-js",
      "go-grpc-uds",
      "grpc-tcp",
      "bare-grpc-js-tcp",
      "go-grpc-tcp",
    ],
  },
  { ref: "shm-ring", transports: ["shm-ring-spin", "shm-ring-park", "shm-ring-adaptive"] },
];

const SPSC_ROWS: readonly string[] = [
  "shm-ring-spin-channel",
  "shm-ring-park-channel",
  "shm-ring-adaptive-channel",
  "shm-ring-spin",
];

const reference = (id: string) => REFERENCE_FIGURES.find((r) => r.id === id);

/** What the three tables read from a report. */
interface SeedContext {
  /** The measured rows, by key. */
  readonly byKey: Map<string, CaseSummary>;
  /** Mean round trip (ns) by key, from the runs. */
  readonly meanNs: Map<string, number>;
  /** Idle CPU (percent of a core) of the park rows, by key. */
  readonly idle: Map<string, number>;
  /** The codec a transport's rows of these tables use. */
  codecOf(transport: string): string;
}

/** Builds the tables from a report; rows that were not measured are left out. */
export function seedComparison(report: BenchReport): SeedComparison {
  const byKey = new Map(report.summaries.filter((s) => s.runs > 0).map((s) => [s.spec.key, s]));
  const codecOf = (transport: string): string =>
    transport.startsWith("bare-") || isGoTransport(transport)
      ? "bytes"
      : transport.endsWith("-channel")
        ? "frame"
        : [...byKey.values()].some((s) => s.spec.transport === transport && s.spec.codec === "raw")
          ? "raw"
          : "json";
  const ctx: SeedContext = {
    byKey,
    meanNs: meanByKey(report),
    idle: idleCpuByKey(report),
    codecOf,
  };
  return {
    ipc: ipcTable(ctx, payloadsAround(report.summaries, PUBLISHED_PAYLOAD)),
    spsc: spscTable(ctx),
    worker: workerTable(ctx),
  };
}

/** UDS vs gRPC over UDS vs shared memory, at the measured `sizes` around the published one. */
function ipcTable(ctx: SeedContext, sizes: string[]): Table {
  const { byKey, codecOf } = ctx;
  const ipcRows: string[][] = [];
  const ipcValues: (number | undefined)[][] = [];
  for (const group of IPC_GROUPS) {
    const ref = reference(group.ref);
    let first = true;
    for (const transport of group.transports) {
      for (const size of sizes) {
        const id = `${transport}/${codecOf(transport)}/${size}`;
        const lat = byKey.get(`latency:${id}`);
        const thr = byKey.get(`throughput:${id}`);
        if (lat === undefined && thr === undefined) continue;
        ipcRows.push([
          first ? (ref?.what ?? group.ref) : "",
          first ? (ref?.p50 ?? "—") : "",
          first ? (ref?.p99 ?? "—") : "",
          first ? (ref?.rate ?? "—") : "",
          id,
          fmtNs(lat?.p50Ns),
          fmtNs(lat?.p99Ns),
          fmtCount(thr?.msgsPerSec),
        ]);
        ipcValues.push([
          undefined,
          undefined,
          undefined,
          undefined,
          undefined,
          lat?.p50Ns,
          lat?.p99Ns,
          thr?.msgsPerSec,
        ]);
        first = false;
      }
    }
  }

  const sizeText = sizes.length > 0 ? sizes.join(" and ") : "—";
  const measuredGo = [...byKey.values()].some((x) => isGoTransport(x.spec.transport));
  return {
    title: "UDS vs gRPC over UDS vs shared memory",
    note: `Published: Go, 64-core server, ${PUBLISHED_PAYLOAD} B payloads. This run: Node.js on this machine, the raw codec (baselines: bytes) at ${sizeText}${sizes.includes(`${PUBLISHED_PAYLOAD}B`) ? "" : ` (the measured sizes around ${PUBLISHED_PAYLOAD} B; \`--sizes ${PUBLISHED_PAYLOAD}\` measures it exactly)`}; p50 and p99 with one call in flight, msgs/s with 64 in flight.${measuredGo ? " The go-* rows are Go on this machine, in this run (grpc-go and a plain net.UnixConn echo, apps/bench/go): the published programs' language on the published programs' job, measured like nearwire's rows." : " No go-* rows: Go is not installed here (apt-get install golang-go golang-google-grpc-dev golang-google-protobuf-dev adds them)."} Published columns: other hardware, another language: side by side for orientation, never as a ratio.`,
    headers: [
      "published (Go)",
      "published p50",
      "published p99",
      "published QPS",
      "this run: case",
      "p50",
      "p99",
      "msgs/s ×64",
    ],
    rows: ipcRows,
    values: ipcValues,
  };
}

/** The SPSC ring: the shm-ring channel and spin rows at 64 B. */
function spscTable(ctx: SeedContext): Table {
  const { byKey, codecOf, meanNs } = ctx;
  const spscRef = reference("spsc");
  const spscRows: string[][] = [];
  const spscValues: (number | undefined)[][] = [];
  for (const transport of SPSC_ROWS) {
    const id = `${transport}/${codecOf(transport)}/64B`;
    const lat = byKey.get(`latency:${id}`);
    const stream = byKey.get(`stream:${id}`);
    if (lat === undefined && stream === undefined) continue;
    const first = spscRows.length === 0;
    const mean = meanNs.get(`latency:${id}`);
    spscRows.push([
      first ? (spscRef?.what ?? "SPSC ring") : "",
      first ? (spscRef?.p50.replace(/\s*\(mean\)$/, "") ?? "—") : "",
      first ? (spscRef?.p99 ?? "—") : "",
      first ? (spscRef?.rate ?? "—") : "",
      first ? "not quoted" : "",
      id,
      fmtNs(mean),
      fmtNs(lat?.p99Ns),
      fmtCount(stream?.msgsPerSec),
      "8 MiB + 4 KiB",
    ]);
    spscValues.push([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      mean,
      lat?.p99Ns,
      stream?.msgsPerSec,
      SHM_SEGMENT_BYTES,
    ]);
  }

  return {
    title: "SPSC shared-memory ring, 64 B messages",
    note: `Published: a tuned Go SPSC ring, 64 B messages. This run: the shm-ring channel layer (the ring with frames, no RPC) and the spin RPC row at 64 B; mean and p99 of the round trip with one message in flight, msgs/s one way (streaming). Memory: the shared segment of one connection with the package's default rings (configured, not measured). Other hardware, another language: never compared as a ratio.`,
    headers: [
      "published (Go)",
      "published mean",
      "published p99",
      "published msgs/s",
      "published memory",
      "this run: case",
      "mean",
      "p99",
      "msgs/s (stream)",
      "shared memory / connection",
    ],
    rows: spscRows,
    values: spscValues,
  };
}

/** Worker threads: rings vs postMessage vs processes, at 64 B, with the worker targets. */
function workerTable(ctx: SeedContext): Table {
  const { byKey, codecOf, meanNs, idle } = ctx;
  const workerRows: string[][] = [];
  const workerValues: (number | undefined)[][] = [];
  let lastSeed: string | undefined;
  for (const [transport, seed, memory] of WORKER_ROWS) {
    const id = `${transport}/${codecOf(transport)}/64B`;
    const lat = byKey.get(`latency:${id}`);
    const stream = byKey.get(`stream:${id}`);
    if (lat === undefined && stream === undefined) continue;
    const ref = WORKER_SEED[seed];
    const first = lastSeed !== seed;
    lastSeed = seed;
    const mean = meanNs.get(`latency:${id}`);
    const idlePct = idle.get(`latency:${id}`) ?? idle.get(`stream:${id}`);
    workerRows.push([
      first ? ref.what : "",
      first ? ref.mean : "",
      first ? ref.p99 : "",
      first ? ref.rate : "",
      first ? ref.memory : "",
      id,
      fmtNs(mean),
      fmtNs(lat?.p50Ns),
      fmtNs(lat?.p99Ns),
      fmtCount(stream?.msgsPerSec),
      memory,
      idlePct === undefined ? "" : `${idlePct.toFixed(2)} %`,
    ]);
    workerValues.push([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      mean,
      lat?.p50Ns,
      lat?.p99Ns,
      stream?.msgsPerSec,
      transport.startsWith("bare-") ? undefined : SHM_SEGMENT_BYTES,
      idlePct,
    ]);
  }
  const p50 = (t: string) => byKey.get(`latency:${t}/${codecOf(t)}/64B`)?.p50Ns;
  const ratio = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined || b === 0 ? "—" : `${(a / b).toFixed(2)}×`;
  const spinStream = byKey.get(`stream:worker-spin-channel/frame/64B`)?.msgsPerSec;
  const parkIdle = idle.get("latency:worker-park-channel/frame/64B");
  const targets = [
    `worker-spin-channel p50 / shm-ring-spin-channel p50 = ${ratio(p50("worker-spin-channel"), p50("shm-ring-spin-channel"))} (target ≤ 1.2×)`,
    `bare-postmessage p50 / worker-spin-channel p50 = ${ratio(p50("bare-postmessage"), p50("worker-spin-channel"))} (target ≥ 10×)`,
    `worker-spin-channel one way ${spinStream === undefined ? "—" : `${fmtCount(spinStream)} msgs/s`} (target ≥ 5 M)`,
    `park idle CPU ${parkIdle === undefined ? "—" : `${parkIdle.toFixed(2)} % of a core`} (target ≤ 2 %)`,
  ];

  return {
    title: "Worker threads: rings vs postMessage vs processes, 64 B messages",
    note: `Published: Go, 64 B messages, a shared-memory SPSC ring between processes and an in-process SPSC channel. This run: the worker rows (server in a worker thread of the client process, both pinned to cores 0–1), Node's own thread channel \`MessagePort.postMessage\` (bare-postmessage) and the shm-ring channel between processes; mean, p50 and p99 of the round trip with one message in flight, msgs/s one way (streaming); fixed memory per connection (configured, not measured); idle CPU: process.cpuUsage of the client process (both threads) over one idle second with the connection parked, percent of a core. Targets, this run's rows only: ${targets.join("; ")}. Published columns: other hardware, another language — never a ratio.`,
    headers: [
      "published (Go)",
      "published mean",
      "published p99",
      "published msgs/s",
      "published memory",
      "this run: case",
      "mean",
      "p50",
      "p99",
      "msgs/s (stream)",
      "fixed memory / connection",
      "idle CPU (park)",
    ],
    rows: workerRows,
    values: workerValues,
  };
}

/**
 * The tables of {@link seedComparison} that hold at least one row of this run, in report order:
 * a run that measured none of a table's rows (a `--filter` run) shows no empty table.
 */
export function measuredSeedTables(
  report: BenchReport,
): { key: keyof SeedComparison; table: Table }[] {
  const seeds = seedComparison(report);
  return (["ipc", "spsc", "worker"] as const)
    .map((key) => ({ key, table: seeds[key] }))
    .filter((x) => x.table.rows.length > 0);
}

/** Median over runs of each case's idle CPU (park-mode worker rows), percent of a core. */
function idleCpuByKey(report: BenchReport): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of report.cases) {
    const v = c.runs.flatMap((r) => (r.idleCpuPercent === undefined ? [] : [r.idleCpuPercent]));
    if (v.length > 0) out.set(c.spec.key, median(v));
  }
  return out;
}

/** Median over runs of each latency case's mean, ns (the summaries keep percentiles only). */
function meanByKey(report: BenchReport): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of report.cases) {
    const means = c.runs.flatMap((r) => (r.latency ? [r.latency.meanNs] : []));
    if (means.length > 0) out.set(c.spec.key, median(means));
  }
  return out;
}

/**
 * Size labels of the payload sweep to show for a published payload: that size if it was
 * measured, else the nearest measured size below and above it.
 */
export function payloadsAround(rows: readonly CaseSummary[], bytes: number): string[] {
  const sized = rows.filter((s) => s.spec.message === "chunk" && s.runs > 0);
  const label = (b: number) => sized.find((s) => s.spec.payloadBytes === b)?.spec.payload;
  const all = [...new Set(sized.map((s) => s.spec.payloadBytes))].sort((a, b) => a - b);
  if (all.includes(bytes)) return [label(bytes) as string];
  const below = all.filter((b) => b < bytes).pop();
  const above = all.find((b) => b > bytes);
  return [below, above].flatMap((b) => (b === undefined ? [] : [label(b) as string]));
}
