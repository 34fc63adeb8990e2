import { CORE_LOOP_WHAT } from "../measure/core-speed.js";
import { fmt3, fmtCount, fmtNs, fmtRatio, markdownTable } from "../report/format.js";
import type { Table } from "../report/table.js";
import type { TransferReport, TransferRun } from "./transfer-bench.js";
import { sizeLabel } from "./transfer-plan.js";

/**
 * The transfer section of the reports: the published scenario beside the published Go figures,
 * large transfers beside `cp` and the bare pipeline, RSS growth, and the transfer targets.
 */

/** The published figures of a Go file-transfer service (other hardware). */
export const PUBLISHED_TRANSFER = [
  {
    what: "Go net/rpc, JSON, whole files",
    uploadsPerSec: "1,287",
    mean: "186 ms",
    p99: "312 ms",
    peakMemory: "1.2 GB",
  },
  {
    what: "Go net/rpc, binary codec, reused connections, 64 KB chunks",
    uploadsPerSec: "4,156",
    mean: "68 ms",
    p99: "115 ms",
    peakMemory: "480 MB",
  },
] as const;

/** Largest RSS growth the targets allow per process for 1 GiB and for 10 × 100 MiB. */
export const RSS_GROWTH_LIMIT_BYTES = 32 * 1024 * 1024;

const MB = (bytes: number | undefined) =>
  bytes === undefined ? "—" : `${(bytes / (1024 * 1024)).toFixed(0)} MiB`;
const gbps = (r: TransferRun | undefined) =>
  r?.elapsedNs === undefined || r.bytes === undefined || r.error !== undefined
    ? undefined
    : r.bytes / (r.elapsedNs / 1e9) / 1e9;
const growth = (f: TransferRun["client"]) =>
  f === undefined ? undefined : Math.max(0, f.peakRssBytes - f.rssAtMarkBytes);
const cpuS = (f: TransferRun["client"]) => (f === undefined ? undefined : f.cpuUs / 1e6);
const mainS = (f: TransferRun["client"]) =>
  f?.mainThreadCpuUs === undefined ? undefined : f.mainThreadCpuUs / 1e6;
const seconds = (s: number | undefined) => (s === undefined ? "—" : s.toFixed(2));
const idOf = (r: TransferRun) => r.spec.key.slice(r.spec.key.indexOf(":") + 1);
/** The servers' `durable` option in this run (reports from before `--durable`: "full"). */
const durableOf = (report: TransferReport) => report.durable ?? "full";

/** What a server's commit of an upload syncs, by `durable`. */
const COMMIT_SYNCS = {
  full: "fdatasync every 8 MiB, fsync + rename at the end",
  commit: "durable: commit: no fdatasync while data arrives, fsync + rename at the end",
  none: "durable: none: no fsync, a rename at the end",
} as const;

/**
 * The seed note's last sentence when this run has the Go yardstick (`go-netrpc`, fsync per commit
 * like the nearwire rows): the fastest nearwire row's uploads/s over Go net/rpc's, this run —
 * among the rows on the same disk (a -tmpfs row pays no fsync).
 */
function goRatio(report: TransferReport): string {
  const go = seedRuns(report.runs).find((r) => r.spec.transport === "go-netrpc");
  // Like for like: nearwire rows that write to the same disk as Go (not the -tmpfs ones).
  const best = fastestSeed(report.runs, false);
  if (go === undefined || best === undefined || !(uploadRate(go) > 0)) return "";
  return ` go-* rows: the same scenario in Go net/rpc (gob, one call per chunk; apps/bench/go/netrpc_*.go) on this machine, with and without fsync. The fastest nearwire row on the same disk, ${idOf(best)}, does ${fmt3(uploadRate(best) / uploadRate(go))}× the uploads/s of go-netrpc (fsync per commit, ${durableOf(report) === "none" ? "which the nearwire rows of this run skipped: durable none" : "as the nearwire rows"}).`;
}

type SeedRun = TransferRun & { spec: { kind: "seed" } };
const uploadRate = (r: TransferRun) => (r.count ?? 0) / ((r.elapsedNs ?? 0) / 1e9);
const seedRuns = (runs: TransferRun[]) =>
  runs.filter((r): r is SeedRun => r.spec.kind === "seed" && r.error === undefined);

/** The nearwire seed row with the most uploads/s, on tmpfs or on the disk. */
function fastestSeed(runs: TransferRun[], tmpfs: boolean): SeedRun | undefined {
  const ours = seedRuns(runs).filter(
    (r) => !r.spec.transport.startsWith("go-") && (r.spec.tmpfs === true) === tmpfs,
  );
  return ours.length === 0
    ? undefined
    : ours.reduce((a, b) => (uploadRate(b) > uploadRate(a) ? b : a));
}

/** The published scenario (2 MiB uploads, 10 clients): this run's rows. */
function seedTable(report: TransferReport): Table {
  const rows: string[][] = [];
  const values: (number | undefined)[][] = [];
  for (const r of report.runs) {
    if (r.spec.kind !== "seed") continue;
    if (r.error !== undefined) {
      rows.push([idOf(r), `FAILED: ${r.error.slice(0, 120)}`, "", "", "", "", "", "", ""]);
      values.push([]);
      continue;
    }
    const s = (r.elapsedNs ?? 0) / 1e9;
    const perSec = (r.count ?? 0) / s;
    const mbps = (r.bytes ?? 0) / s / 1e6;
    const perUpload = (f: TransferRun["client"]) =>
      f === undefined || !r.count ? undefined : f.cpuUs / 1e3 / r.count;
    rows.push([
      idOf(r),
      fmt3(perSec),
      fmtNs(r.meanNs),
      fmtNs(r.p99Ns),
      fmt3(mbps),
      MB(r.client?.peakRssBytes),
      MB(r.server?.peakRssBytes),
      fmt3(perUpload(r.client)),
      fmt3(perUpload(r.server)),
    ]);
    values.push([
      undefined,
      perSec,
      r.meanNs,
      r.p99Ns,
      mbps,
      r.client?.peakRssBytes,
      r.server?.peakRssBytes,
      perUpload(r.client),
      perUpload(r.server),
    ]);
  }
  const t = report.seedTiming;
  return {
    title: "Transfer: the published scenario (2 MiB uploads, 10 concurrent clients)",
    note: `10 clients, each on its own connection, upload a 2 MiB buffer again and again (one upload call per file — below the client's resumeFromBytes, 4 MiB, it asks no status first — 64 KiB chunks, CRC-32C per chunk, SHA-256, server writes to ${report.fileDir} with ${durableOf(report) === "none" ? "a rename and no fsync (durable: none)" : "fsync + rename"} per commit; -tmpfs rows: the server's root on /dev/shm, tmpfs, where fsync costs nothing); ${t.warmupMs} ms warm-up, then a ${t.durationMs} ms window. Latency = one upload end to end. Peak RSS = the process's high-water mark (VmHWM), shm-ring rows include the shared rings (8 MiB per connection) they touch. CPU = ms per upload.${goRatio(report)}`,
    headers: [
      "transport/codec/file × clients",
      "uploads/s",
      "mean",
      "p99",
      "MB/s",
      "client peak RSS",
      "server peak RSS",
      "client CPU ms/upload",
      "server CPU ms/upload",
    ],
    rows,
    values,
  };
}

/** The published Go figures, for orientation beside the scenario's table. */
function publishedTable(): Table {
  return {
    title: "Transfer: the published figures (Go, other hardware)",
    note: "Published figures of a Go net/rpc file-transfer service on 8 cores and 16 GB, 2 MB uploads at 10 concurrent clients. Another language on other hardware: side by side with the table above for orientation, never as a ratio.",
    headers: ["published (Go)", "uploads/s", "mean", "p99", "peak memory"],
    rows: PUBLISHED_TRANSFER.map((p) => [p.what, p.uploadsPerSec, p.mean, p.p99, p.peakMemory]),
  };
}

/** Large transfers and baselines. */
function largeTable(report: TransferReport): Table {
  const base = (b: string) =>
    report.runs.find((r) => r.spec.kind === "baseline" && r.spec.baseline === b);
  const ref = {
    cp: gbps(base("cp")),
    cpFsync: gbps(base("cp-fsync")),
    bare: gbps(base("bare-net-uds")),
    bareFsync: gbps(base("bare-net-uds-fsync")),
  };
  const rows: string[][] = [];
  const values: (number | undefined)[][] = [];
  for (const r of report.runs) {
    if (r.spec.kind === "seed") continue;
    if (r.error !== undefined) {
      rows.push([idOf(r), `FAILED: ${r.error.slice(0, 120)}`]);
      values.push([]);
      continue;
    }
    const g = gbps(r) as number;
    const file = r.spec.kind === "baseline" || r.spec.where === "file";
    const ratio = (to: number | undefined) =>
      file && to !== undefined && r.spec.kind !== "baseline" ? g / to : undefined;
    const cg = growth(r.client);
    const sg = growth(r.server);
    const limited = r.spec.kind === "large" || r.spec.kind === "many";
    const within =
      !limited || cg === undefined || sg === undefined
        ? ""
        : Math.max(cg, sg) <= RSS_GROWTH_LIMIT_BYTES
          ? "yes"
          : "NO";
    rows.push([
      idOf(r),
      g.toFixed(3),
      fmtRatio(ratio(ref.cp)),
      fmtRatio(ratio(ref.cpFsync)),
      fmtRatio(ratio(ref.bare)),
      fmtRatio(ratio(ref.bareFsync)),
      seconds(cpuS(r.client)),
      seconds(cpuS(r.server)),
      seconds(mainS(r.client)),
      seconds(mainS(r.server)),
      MB(cg),
      MB(sg),
      within,
    ]);
    values.push([
      undefined,
      g,
      ratio(ref.cp),
      ratio(ref.cpFsync),
      ratio(ref.bare),
      ratio(ref.bareFsync),
      cpuS(r.client),
      cpuS(r.server),
      mainS(r.client),
      mainS(r.server),
      cg,
      sg,
      undefined,
    ]);
  }
  return {
    title: "Transfer: large files, one way",
    note: `GB/s = 10^9 B/s of payload. file-* = file to file on ${report.fileDir}: an upload reads a file (through the page cache) and the server commits it (${COMMIT_SYNCS[durableOf(report)]}); a download writes a .nearwire-part file, fsyncs and renames it; the receiving side writes whole 512 KiB batches past the page cache (O_DIRECT, transfer's default directWrites) where the file system takes it. memory-* = a generated source or a discarding Writable on the client (downloads with lendChunks: the sink calls back at once, so the client reuses its buffers), the server's root on ${report.memoryDir ?? "(no tmpfs)"}: no disk on either side. Baselines in the same run: cp of the same file on the same disk (and cp + sync of the copy), and bare-net-uds = node:net + stream.pipeline from a file to a file over a Unix socket between two processes (and with an fsync at the end); ${durableOf(report) === "none" ? "the nearwire rows of this run did not fsync (durable: none), so the columns without fsync are the like-for-like ones" : "nearwire rows fsync, so the fsync columns are the like-for-like ones"}. floor-file / floor-memory = a receiving server's own work without a transfer, one process on the server's core: each 64 KiB chunk copied from a 4 MiB source into a write batch (a receiver's one copy), its CRC-32C and SHA-256, 512 KiB writes (O_DIRECT where the file system takes it, two in flight there, as the rows' receivers), an fdatasync every 8 MiB and an fsync at the end, into the file rows' root and the memory rows' root (server columns): no row's server can cost less per GiB. floor-sender = an uploading client's own work without a transfer, one process on the client's core: 256 KiB reads of the rows' source file through the page cache, CRC-32C, SHA-256 and one copy of each 64 KiB chunk (client columns): no file upload's client can cost less per GiB. ÷ columns: this row's GB/s ÷ the baseline's (file rows only). many-* = that many transfers at once on one connection. Byte window (uds, shm-ring): the transports' default, 2 MiB, for one transfer; 512 KiB on both ends for many-* and the 2 MiB × 10 rows, as the transfer README advises for many at once. RSS growth = peak RSS (VmHWM) − RSS when the window began, per process; the target's limit is 32 MiB. CPU s = the whole process; JS thread s = its JavaScript thread alone (Linux), without the thread pool's file writes and the GC helper threads: the kernel's cost of putting written bytes into the page cache (tmpfs roots, and writes that cannot go past it) lands there and swings several-fold between runs on a VM (0.2–1.9 s per GiB measured here for the same 512 KiB writes), so the JS thread is the steadier figure of what nearwire's code costs.`,
    headers: [
      "case",
      "GB/s",
      "÷ cp",
      "÷ cp+fsync",
      "÷ bare pipeline",
      "÷ bare+fsync",
      "client CPU s",
      "server CPU s",
      "client JS thread s",
      "server JS thread s",
      "client RSS growth",
      "server RSS growth",
      "≤ 32 MiB",
    ],
    rows,
    values,
  };
}

/** The transfer targets against this run (issue 28's: bulk data at the speed of the machine). */
function targetsTable(report: TransferReport): Table {
  const rows: string[][] = [];
  const runs = report.runs.filter((r) => r.error === undefined);
  const base = (b: string) =>
    gbps(runs.find((r) => r.spec.kind === "baseline" && r.spec.baseline === b));
  const cpFsync = base("cp-fsync");
  const bareFsync = base("bare-net-uds-fsync");
  const verdict = (ok: boolean | undefined) => (ok === undefined ? "—" : ok ? "met" : "NOT met");
  const durable = durableOf(report);
  // A target stated for a durability this run did not have is shown, not judged (—).
  const ratioRow = (
    id: string,
    g: number,
    to: number | undefined,
    min: number,
    of: string,
    judged = true,
  ) => {
    if (to === undefined) return;
    const label = `${id} ≥ ${min}× ${of}${judged ? "" : `, not judged: this run had durable ${durable}`}`;
    rows.push([label, fmtRatio(g / to), judged ? verdict(g / to >= min) : "—"]);
  };
  const large = runs.filter(
    (r): r is TransferRun & { spec: { kind: "large" } } => r.spec.kind === "large",
  );
  for (const r of large) {
    const { transport, where, bytes } = r.spec;
    const shm = transport.startsWith("shm-ring");
    if (where !== "file" || !(shm || transport === "uds")) continue;
    const g = gbps(r) as number;
    const id = idOf(r);
    // CPU per GiB per side: the process (the verdict), its JS thread beside it.
    const limit = shm ? 1.5 : 2;
    for (const [side, f] of [
      ["client", r.client],
      ["server", r.server],
    ] as const) {
      const perGiB = (us: number | undefined) =>
        us === undefined ? undefined : us / 1e6 / (bytes / 1024 ** 3);
      const cpu = perGiB(f?.cpuUs);
      const js = perGiB(f?.mainThreadCpuUs);
      rows.push([
        `${id}: ${side} CPU ≤ ${limit} s per GiB`,
        `${seconds(cpu)} s (JS thread ${seconds(js)} s)`,
        verdict(cpu === undefined ? undefined : cpu <= limit),
      ]);
    }
    ratioRow(id, g, cpFsync, 0.8, "cp + fsync (default durability)", durable === "full");
    if (!shm) ratioRow(id, g, bareFsync, 0.75, "bare pipeline + fsync", durable !== "none");
  }
  for (const r of large) {
    if (r.spec.where !== "memory" || !r.spec.transport.startsWith("shm-ring")) continue;
    if (r.spec.codec !== "raw") continue;
    const g = gbps(r) as number;
    rows.push([`${idOf(r)} ≥ 0.8 GB/s`, `${g.toFixed(2)} GB/s`, verdict(g >= 0.8)]);
  }
  floorRows(runs, rows, cpFsync);
  seedTargets(runs, rows, verdict, durable !== "none");
  for (const r of runs) {
    if (r.spec.kind !== "many" && !(r.spec.kind === "large" && r.spec.bytes >= 1024 ** 3)) continue;
    const worst = Math.max(growth(r.client) ?? 0, growth(r.server) ?? 0);
    rows.push([
      `${idOf(r)}: RSS growth ≤ 32 MiB per side`,
      MB(worst),
      verdict(worst <= RSS_GROWTH_LIMIT_BYTES),
    ]);
  }
  return {
    title: "Transfer: targets",
    note: "The targets of bulk transfer against this run's rows. File rows: CPU per GiB per side (the process is the verdict, its JS thread is beside it: the kernel's page-cache cost on the thread pool swings between runs), ÷ cp + fsync and, for uds, ÷ the bare pipeline + fsync, both on the same disk. The target for shm-ring file to file on a tmpfs root (≥ 0.7× cp, ≥ 1.2× the bare pipeline) has no row: the file rows run on the file directory's disk. Seed rows: the fastest nearwire row on the disk and on tmpfs. Yardstick rows: the floors' CPU per GiB (the receiver's, and the uploading client's), and what they allow: a row needs its server's CPU per GiB at most 1.074 ÷ its GB/s target (1.34 s for 0.8 GB/s), and a file upload both sides at most 1.074 ÷ (0.8 × cp + fsync GB/s). Not here: buffers and promises per chunk (checked by packages/transfer/test/per-chunk-cost.test.ts) and in-place codec encode (the main report's codec table). A target measured at a smaller size than its own (the small profile uses 64 MiB) says so in its case id.",
    headers: ["target", "this run", "verdict"],
    rows,
  };
}

/**
 * What the floors say of the targets: a receiving server's and an uploading client's own work
 * per GiB without a transfer (no verdict: yardsticks), the most GB/s a side that did only that
 * on one core could move, and the most of `cp` + fsync a file upload could reach with neither
 * side slower than its floor (the slower floor's GB/s, disk waits included, ÷ cp + fsync's).
 */
function floorRows(runs: TransferRun[], rows: string[][], cpFsync: number | undefined): void {
  const most: Partial<Record<string, number>> = {};
  for (const r of runs) {
    const spec = r.spec;
    if (spec.kind !== "baseline" || !spec.baseline.startsWith("floor-")) continue;
    const sender = spec.baseline === "floor-sender";
    const f = sender ? r.client : r.server;
    const perGiB = (us: number | undefined) =>
      us === undefined ? undefined : us / 1e6 / (spec.bytes / 1024 ** 3);
    const cpu = perGiB(f?.cpuUs);
    const js = perGiB(f?.mainThreadCpuUs);
    const gb = cpu === undefined || cpu === 0 ? undefined : 1024 ** 3 / 1e9 / cpu;
    most[spec.baseline] = gbps(r);
    const whose = sender ? "an uploading client's" : "a receiving server's";
    rows.push([
      `${idOf(r)}: ${whose} own work, CPU per GiB (at most GB/s on one core)`,
      `${seconds(cpu)} s (JS thread ${seconds(js)} s; ${gb === undefined ? "—" : `${gb.toFixed(2)} GB/s`})`,
      "yardstick",
    ]);
  }
  const sender = most["floor-sender"];
  const receiver = most["floor-file"];
  if (sender !== undefined && receiver !== undefined && cpFsync !== undefined)
    rows.push([
      "file uploads: the most of cp + fsync the floors allow (the slower floor's GB/s ÷ cp + fsync's)",
      fmtRatio(Math.min(sender, receiver) / cpFsync),
      "yardstick",
    ]);
}

/**
 * The seed targets: server CPU ≤ 4 ms per upload, ≥ 150 uploads/s on the disk with fsync and
 * ≥ 250/s on tmpfs, ≥ 2× Go net/rpc (fsync, same run): each on the fastest nearwire row. The
 * two with fsync are not judged (—) when the servers did not fsync (`synced` false).
 */
function seedTargets(
  runs: TransferRun[],
  rows: string[][],
  verdict: (ok: boolean | undefined) => string,
  synced: boolean,
): void {
  const go = seedRuns(runs).find((r) => r.spec.transport === "go-netrpc");
  for (const tmpfs of [false, true]) {
    const best = fastestSeed(runs, tmpfs);
    if (best === undefined) continue;
    const id = idOf(best);
    const rate = uploadRate(best);
    const min = tmpfs ? 250 : 150;
    const judged = tmpfs || synced;
    rows.push([
      `${id} ≥ ${min} uploads/s${judged ? "" : ", not judged: this run had durable none"}`,
      fmt3(rate),
      judged ? verdict(rate >= min) : "—",
    ]);
    const ms =
      best.server === undefined || !best.count ? undefined : best.server.cpuUs / 1e3 / best.count;
    rows.push([
      `${id}: server CPU ≤ 4 ms per upload`,
      ms === undefined ? "—" : `${fmt3(ms)} ms`,
      verdict(ms === undefined ? undefined : ms <= 4),
    ]);
    if (!tmpfs && go !== undefined && uploadRate(go) > 0)
      rows.push([
        `${id} ≥ 2× go-netrpc${synced ? "" : ", not judged: this run had durable none"}`,
        fmtRatio(rate / uploadRate(go)),
        synced ? verdict(rate / uploadRate(go) >= 2) : "—",
      ]);
  }
}

/** Every table of the transfer section, in report order. */
export function transferTables(report: TransferReport): Table[] {
  const tables: Table[] = [];
  if (report.runs.some((r) => r.spec.kind === "seed"))
    tables.push(seedTable(report), publishedTable());
  if (report.runs.some((r) => r.spec.kind !== "seed")) tables.push(largeTable(report));
  const targets = targetsTable(report);
  if (targets.rows.length > 0) tables.push(targets);
  return tables;
}

/** One paragraph on how the transfer section was measured. */
export function transferMethod(report: TransferReport): string {
  const sizes = [
    ...new Set(
      report.runs.flatMap((r) => (r.spec.kind === "seed" ? [] : [sizeLabel(r.spec.bytes)])),
    ),
  ];
  return `Profile ${report.profile}; every case runs a fresh server process and a fresh client process${report.pin ? " (server on core 1, client on core 0)" : ""}; files under ${report.fileDir}${report.memoryDir === undefined ? "" : `, memory roots under ${report.memoryDir}`}; sizes ${sizes.join(", ") || "—"}; 64 KiB chunks; run ${report.startedAt} → ${report.finishedAt}; 1-minute load average ${report.loadAverage.start.toFixed(1)} at the start (what else ran: near 1 or above, every row is low) and ${report.loadAverage.end.toFixed(1)} at the end on ${report.cores} cores (this one counts the bench's own server, client and threads waiting on fsync).${durableOf(report) === "full" ? "" : ` Servers ran with durable: "${durableOf(report)}" (\`--durable\`; the default is "full"): a target set for the default durability is shown, not judged (—).`}${coreSpeed(report)} Measure it alone with \`nearwire-bench transfer\` (\`--small\`, \`--full\`).`;
}

/**
 * The cores' speed at both ends of the run, in words, with the slowest core's lag behind the
 * fastest when it passes 10 % (which slows the side pinned to it, whatever the code).
 */
export function coreSpeed(report: TransferReport): string {
  const loop = report.coreLoopMs;
  if (loop === undefined) return "";
  const at = (ms: number[]) => ms.map((m, core) => `${m.toFixed(0)} ms on core ${core}`).join(", ");
  const lag = (ms: number[], when: string) => {
    const slow = Math.max(...ms) / Math.min(...ms);
    return slow > 1.1
      ? ` At the ${when}, core ${ms.indexOf(Math.max(...ms))} ran it ${((slow - 1) * 100).toFixed(0)} % slower than core ${ms.indexOf(Math.min(...ms))}: what ran pinned to it (core 1: the server, core 0: the client) was slowed by up to as much.`
      : "";
  };
  return ` Core speed: ${CORE_LOOP_WHAT} took ${at(loop.start)} before the first case and ${at(loop.end)} after the last.${lag(loop.start, "start")}${lag(loop.end, "end")}`;
}

/** The transfer section as Markdown (level-2 heading). */
export function transferMarkdown(report: TransferReport): string {
  const out = ["## Transfer (@nearwire/transfer)", "", transferMethod(report), ""];
  for (const t of transferTables(report))
    out.push(`### ${t.title}`, "", t.note, "", markdownTable(t.headers, t.rows), "");
  return out.join("\n");
}

/** Counts for a one-line summary on the terminal. */
export function transferSummaryLine(report: TransferReport): string {
  const failed = report.runs.filter((r) => r.error !== undefined).length;
  return `transfer: ${fmtCount(report.runs.length)} case(s)${failed > 0 ? `, ${failed} FAILED` : ""}`;
}

/**
 * The transfer section as HTML (`<h2 id="transfer">`); `table` renders one table (the HTML
 * report's `tableHtml`, passed in so this file does not import the report that imports it).
 */
export function transferHtml(
  report: TransferReport,
  table: (t: Table, id: string) => string,
  escapeText: (text: string) => string,
): string {
  const out = [
    '<h2 id="transfer">Transfer (@nearwire/transfer)</h2>',
    `<p class="note">${escapeText(transferMethod(report))}</p>`,
  ];
  transferTables(report).forEach((t, i) => {
    out.push(
      `<h3>${escapeText(t.title)}</h3>`,
      `<p class="note">${escapeText(t.note)}</p>`,
      table(t, `transfer-${i}`),
    );
  });
  return out.join("\n");
}
