import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { AB_LIMITS, abRows, abTable } from "../ci/ab-gate.js";
import {
  type BaseTree,
  baseTreeAt,
  defaultBaseRev,
  type NoBaseTree,
  prepareBaseTree,
  repoRootOf,
} from "../ci/base-tree.js";
import {
  type Baseline,
  compare,
  comparisonTable,
  computeRatios,
  makeBaseline,
  serializeBaseline,
} from "../ci/ci.js";
import type { CaseSpec, MessageName } from "../measure/case-spec.js";
import type { CodecResult } from "../measure/codec-bench.js";
import { resolveGoRows } from "../measure/go-rows.js";
import { defaultPin, envSuffix, machineInfo } from "../measure/machine.js";
import { buildCiMatrix, buildMatrix, type MatrixInput } from "../measure/matrix.js";
import { loadPlugins } from "../measure/plugins.js";
import {
  type Build,
  type CaseResult,
  CURRENT_BUILD,
  Orchestrator,
  type RunSettings,
} from "../measure/runner.js";
import { renderCharts } from "../report/charts.js";
import { textTable } from "../report/format.js";
import { renderHtml } from "../report/html-report.js";
import { renderMarkdown } from "../report/markdown-report.js";
import { seedComparison } from "../report/seed-comparison.js";
import { median } from "../report/stats.js";
import { type BenchReport, summarise } from "../report/summary.js";
import { allTables } from "../report/tables.js";
import { DOUBT_LEGEND, doubtLine } from "../report/trust.js";
import { mainRunTransferCases, measureTransferSection } from "../transfer/transfer-command.js";
import type { BenchOptions } from "./args.js";
import { Progress } from "./progress.js";

/** `apps/bench` (works from `src/` under tsx and from `dist/`). */
export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Rounds of the whole CI matrix that `--update-baseline` records the spread from. */
export const BASELINE_ROUNDS = 5;

const DEFAULTS = { durationMs: 250, warmupMs: 500, repeat: 1 };
/** CI: 300 ms of least warm-up (the warm-up goes on until steady), 3 repeats per side. */
const CI_DEFAULTS = { durationMs: 250, warmupMs: 300, repeat: 3 };

/** Where output goes and what it prints. */
export interface BenchIo {
  out: (line: string) => void;
  err: NodeJS.WriteStream;
  /** Where `--json -` / `--markdown -` write (default: process.stdout). */
  stdout?: (text: string) => void;
}

/**
 * Progress and tables go to stdout, unless `--json -` or `--markdown -` puts a report there:
 * then they go to stderr, so stdout holds only that report.
 */
export function defaultIo(options: Pick<BenchOptions, "json" | "markdown">): BenchIo {
  const toStdout = options.json === "-" || options.markdown === "-";
  const stream = toStdout ? process.stderr : process.stdout;
  return {
    out: (l) => stream.write(`${l}\n`),
    err: process.stderr,
    stdout: (t) => process.stdout.write(t),
  };
}

/** Runs the bench as the command line asks; returns the process exit code. */
export async function runBench(
  options: BenchOptions,
  argv: readonly string[],
  io: BenchIo = defaultIo(options),
): Promise<number> {
  const startedAt = new Date();
  const machine = machineInfo();
  const pin = (options.pin ?? defaultPin(machine)) && machine.tasksetAvailable;
  const defaults = options.ci ? CI_DEFAULTS : DEFAULTS;
  const settings: RunSettings = {
    durationMs: options.durationMs ?? defaults.durationMs,
    warmupMs: options.warmupMs ?? defaults.warmupMs,
    pin,
    seed: options.seed,
    ...(options.cpuProfDir === undefined ? {} : { cpuProfDir: options.cpuProfDir }),
  };
  const repeat = options.repeat ?? defaults.repeat;
  io.out(
    `nearwire-bench  node ${machine.node}  cpu "${machine.cpuModel}" x${machine.cores}  kernel ${machine.kernel}${envSuffix(machine)}`,
  );
  io.out(
    `pinning ${pin ? "on (server core 1, client core 0)" : `off${options.pin === true ? " (taskset not available)" : ""}`}  seed ${settings.seed}  duration ${settings.durationMs} ms  warm-up ${settings.warmupMs} ms  repeat ${repeat}`,
  );

  const plugins = await loadPlugins();
  const codecNames = plugins.messages.codecs.map((c) => c.name);
  // The Go yardstick's rows are offered to every run but the CI one, and dropped below (with a
  // line saying why) when Go is not there.
  const input: MatrixInput = {
    transports: plugins.transports,
    codecs: codecNames,
    go: !options.ci,
  };
  for (const a of plugins.availability)
    io.out(`  ${a.name}: ${a.status}${a.detail ? ` (${a.detail})` : ""}`);

  const keep = (c: CaseSpec) =>
    options.filter === undefined || options.filter.test(c.id) || options.filter.test(c.key);
  const go = resolveGoRows(
    options.ci ? buildCiMatrix(input).filter(keep) : buildMatrix(options, input),
    !options.list,
  );
  const cases = go.cases;
  if (go.line !== undefined) io.out(go.line);
  if (go.availability !== undefined) plugins.availability.push(go.availability);
  if (go.binary !== undefined) settings.goBinary = go.binary;
  const codecJobs = codecPlan(options, codecNames);
  const transferCases = await mainRunTransferCases(options);
  if (options.list) {
    for (const c of cases) io.out(c.key);
    for (const j of codecJobs) io.out(`codec:${j.codec}/${j.messages.join(",")}`);
    for (const c of transferCases) io.out(c.key);
    return 0;
  }
  io.out(`${cases.length} transport cases x ${repeat} run(s), ${codecJobs.length} codec job(s)`);

  const ab = options.ci && !options.updateBaseline ? prepareBase(options, io) : undefined;
  const base = ab !== undefined && !("unavailable" in ab) ? ab : undefined;
  const builds: Build[] = [currentBuild(options)];
  if (base !== undefined) builds.push(base.build);

  const rounds = options.updateBaseline ? BASELINE_ROUNDS : 1;
  const roundRatios: Record<string, number>[] = [];
  let report: BenchReport | undefined;
  let last: Measured[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      if (rounds > 1) io.out(`baseline round ${round + 1}/${rounds}`);
      last = await measureAll(cases, codecJobs, settings, repeat, options.ci, io, builds);
      const current = last[0] as Measured;
      const codecs = mergeCodecRuns(current.codecRuns.flat());
      const summaries = summarise(current.results, input, machine.cores);
      report = benchReport({
        startedAt,
        argv,
        settings,
        repeat,
        options,
        machine,
        availability: plugins.availability,
        input,
        codecNames,
        codecs,
        results: current.results,
        summaries,
      });
      roundRatios.push(computeRatios(summaries, codecs));
    }
  } finally {
    base?.dispose();
  }
  if (report === undefined) return 1;
  const current = last[0] as Measured;
  const baseRun = last[1];
  if (base !== undefined && baseRun !== undefined) {
    report.ab = {
      base: { rev: base.rev, ...(base.sha === undefined ? {} : { sha: base.sha }) },
      limits: AB_LIMITS,
      rows: abRows(current.results, baseRun.results, current.codecRuns, baseRun.codecRuns),
    };
  }

  for (const t of allTables(report.codecs, report.summaries))
    io.out(`\n${t.title}\n${textTable(t.headers, t.rows)}`);
  const doubted = doubtLine(report.summaries);
  if (doubted !== undefined) io.out(`\n${doubted}\n${DOUBT_LEGEND}`);
  const transfer = await measureTransferSection(transferCases, options, pin, io.out);
  if (transfer !== undefined) report.transfer = transfer;
  writeOutputs(report, options, startedAt, io);

  const exit =
    report.summaries.some((s) => s.error !== undefined) ||
    transfer?.runs.some((r) => r.error !== undefined)
      ? 1
      : 0;
  if (exit !== 0) io.out("\nsome cases failed (see the tables and the JSON report)");
  if (!options.ci) return exit;
  return ciExit(options, report, base?.sha, ab, roundRatios, io, exit);
}

/** The build whose workers run this tree (with the gate's self-test slowdown, if asked). */
function currentBuild(options: BenchOptions): Build {
  const us = options.selfTestSlowdownUs;
  if (us === undefined) return CURRENT_BUILD;
  const ext = CURRENT_BUILD.workerFile.endsWith(".ts") ? ".ts" : ".js";
  const preload = join(dirname(CURRENT_BUILD.workerFile), "ci", `inject-slowdown${ext}`);
  return {
    ...CURRENT_BUILD,
    nodeArgs: [...CURRENT_BUILD.nodeArgs, "--import", preload],
    env: { NEARWIRE_BENCH_SLOWDOWN_US: String(us) },
  };
}

/** The A/B base for `--ci`: `--base-dir`, or `--base` (default parent) checked out and built. */
function prepareBase(options: BenchOptions, io: BenchIo): BaseTree | NoBaseTree {
  if (options.baseDir !== undefined) return baseTreeAt(resolve(options.baseDir));
  const root = repoRootOf(PACKAGE_DIR);
  if (root === undefined) return { unavailable: "not in a git repository" };
  const rev = options.baseRev ?? defaultBaseRev(root);
  return prepareBaseTree(root, rev, io.out);
}

function isCustom(o: BenchOptions): boolean {
  return [o.filter, o.transports, o.codecs, o.messages, o.sizes].some((v) => v !== undefined);
}

interface CodecJob {
  codec: string;
  messages: MessageName[];
}

/** Codec benchmarks: every codec × message by default; skipped when transports are selected. */
function codecPlan(options: BenchOptions, codecs: string[]): CodecJob[] {
  if (options.ci)
    return codecs
      .filter((c) => options.filter === undefined || options.filter.test(`codec:${c}/tick`))
      .map((codec) => ({ codec, messages: ["tick"] }));
  if (options.transports !== undefined) return [];
  const messages: MessageName[] = options.messages ?? ["tick", "request", "metric", "chunk"];
  return codecs
    .filter((c) => options.codecs === undefined || options.codecs.includes(c))
    .map((codec) => ({
      codec,
      messages: messages.filter(
        (m) => options.filter === undefined || options.filter.test(`codec:${codec}/${m}`),
      ),
    }))
    .filter((j) => j.messages.length > 0);
}

/** What one build measured: every case's runs, and the codec results of every repeat. */
interface Measured {
  results: CaseResult[];
  codecRuns: CodecResult[][];
}

/**
 * Runs every codec job and case `repeat` times on each build. With two builds (the A/B gate)
 * the builds alternate case by case, in ABBA order over repeats, so drift in the machine's
 * load falls on both sides alike.
 */
async function measureAll(
  cases: readonly CaseSpec[],
  codecJobs: readonly CodecJob[],
  settings: RunSettings,
  repeat: number,
  ci: boolean,
  io: BenchIo,
  builds: readonly Build[] = [CURRENT_BUILD],
): Promise<Measured[]> {
  const orchestrator = new Orchestrator(settings);
  const progress = new Progress((cases.length + codecJobs.length) * repeat * builds.length, io.err);
  const measured: Measured[] = builds.map(() => ({
    results: cases.map((spec) => ({ spec, runs: [] })),
    codecRuns: [],
  }));
  const codecTimeMs = ci ? 150 : 200;
  const tag = (b: Build, label: string) => (builds.length > 1 ? `${b.label} ${label}` : label);
  try {
    for (let r = 0; r < repeat; r++) {
      const order = builds.map((_, i) => i);
      if (r % 2 === 1) order.reverse();
      for (const job of codecJobs) {
        for (const bi of order) {
          const build = builds[bi] as Build;
          const label = tag(build, `codec ${job.codec}`);
          progress.start(label);
          try {
            (measured[bi] as Measured).codecRuns.push(
              await orchestrator.runCodec(job.codec, job.messages, codecTimeMs, build),
            );
            progress.finish(label, "done");
          } catch (err) {
            progress.finish(label, `FAILED ${(err as Error).message}`);
          }
        }
      }
      for (let k = 0; k < cases.length; k++) {
        for (const bi of order) {
          const build = builds[bi] as Build;
          const res = (measured[bi] as Measured).results[k] as CaseResult;
          const label = tag(build, res.spec.key);
          progress.start(label);
          try {
            const run = await orchestrator.runCase(res.spec, build);
            res.runs.push(run);
            progress.finish(
              label,
              run.latency
                ? `p50 ${(run.latency.p50Ns / 1e3).toFixed(1)} µs`
                : `${Math.round(run.msgsPerSec)} msgs/s`,
            );
          } catch (err) {
            res.error = (err as Error).message;
            progress.finish(label, `FAILED ${res.error}`);
          }
        }
      }
    }
  } finally {
    progress.end();
    orchestrator.close();
  }
  return measured;
}

/** Median over repeats of each codec × message. */
function mergeCodecRuns(all: readonly CodecResult[]): CodecResult[] {
  const groups = new Map<string, CodecResult[]>();
  for (const r of all) {
    const k = `${r.codec}/${r.message}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  return [...groups.values()].map((g) => {
    const first = g[0] as CodecResult;
    return g.length === 1
      ? first
      : {
          ...first,
          encodeOpsPerSec: median(g.map((x) => x.encodeOpsPerSec)),
          decodeOpsPerSec: median(g.map((x) => x.decodeOpsPerSec)),
          ...(first.encodeInPlaceOpsPerSec === undefined
            ? {}
            : {
                encodeInPlaceOpsPerSec: median(g.map((x) => x.encodeInPlaceOpsPerSec ?? 0)),
              }),
          encodeRme: median(g.map((x) => x.encodeRme)),
          decodeRme: median(g.map((x) => x.decodeRme)),
        };
  });
}

function stamp(d: Date): string {
  return d.toISOString().replace(/[:.]/g, "-");
}

/** Writes the JSON, Markdown, SVG and HTML outputs that were asked for (all four by default). */
function writeOutputs(
  report: BenchReport,
  options: BenchOptions,
  startedAt: Date,
  io: BenchIo,
): void {
  const none =
    options.json === undefined &&
    options.markdown === undefined &&
    options.svg === undefined &&
    options.html === undefined;
  if (options.ci && none) return;
  const dir = join(PACKAGE_DIR, "out", stamp(startedAt));
  const jsonFile =
    options.json === "" || (none && options.json === undefined)
      ? join(dir, "report.json")
      : options.json;
  const mdFile =
    options.markdown === "" || (none && options.markdown === undefined)
      ? join(dir, "report.md")
      : options.markdown;
  const svgDir = options.svg === "" || (none && options.svg === undefined) ? dir : options.svg;
  const htmlFile =
    options.html === "" || (none && options.html === undefined)
      ? join(dir, "report.html")
      : options.html;
  const written: string[] = [];
  let charts: string[] = [];
  if (svgDir !== undefined) {
    mkdirSync(svgDir, { recursive: true });
    for (const [name, svg] of Object.entries(renderCharts(report.codecs, report.summaries))) {
      writeFileSync(join(svgDir, name), svg);
      written.push(join(svgDir, name));
      charts.push(join(svgDir, name));
    }
  }
  const stdout = io.stdout ?? ((t: string) => process.stdout.write(t));
  // The JSON carries the published-shape tables too (`seedTables`) (derived from the cases; render.ts recomputes them).
  const json = () =>
    `${JSON.stringify({ ...report, seedTables: seedComparison(report) }, null, 1)}\n`;
  if (jsonFile === "-") stdout(json());
  else if (jsonFile !== undefined) {
    mkdirSync(dirname(resolve(jsonFile)), { recursive: true });
    writeFileSync(jsonFile, json());
    written.push(jsonFile);
  }
  if (mdFile === "-") {
    charts = charts.map((c) => relative(process.cwd(), resolve(c)) || basename(c));
    stdout(renderMarkdown(report, charts));
  } else if (mdFile !== undefined) {
    const mdDir = dirname(resolve(mdFile));
    mkdirSync(mdDir, { recursive: true });
    charts = charts.map((c) => relative(mdDir, resolve(c)) || basename(c));
    writeFileSync(mdFile, renderMarkdown(report, charts));
    written.push(mdFile);
  }
  if (htmlFile !== undefined) {
    mkdirSync(dirname(resolve(htmlFile)), { recursive: true });
    writeFileSync(htmlFile, renderHtml(report));
    written.push(htmlFile);
  }
  if (written.length === 0) return;
  io.out("\nwritten:");
  for (const f of written) io.out(`  ${f}`);
}

/**
 * The committed baseline: written by `--update-baseline`; otherwise compared with this run.
 * With `recordOnly` (the A/B gate ran) it is printed as a record and never fails the run.
 */
function ciCheck(
  options: BenchOptions,
  roundRatios: Record<string, number>[],
  report: BenchReport,
  io: BenchIo,
  recordOnly: boolean,
): number {
  const file = options.baselineFile ?? join(PACKAGE_DIR, "baseline.json");
  if (options.updateBaseline) {
    const baseline = makeBaseline(roundRatios, {
      cpuModel: report.machine.cpuModel,
      cores: report.machine.cores,
      node: report.machine.node,
    });
    writeFileSync(file, serializeBaseline(baseline));
    io.out(`\nbaseline written: ${file} (${roundRatios.length} rounds)`);
    io.out(comparisonTable(compare(roundRatios[roundRatios.length - 1] ?? {}, baseline).rows));
    return 0;
  }
  if (!existsSync(file)) {
    io.out(`\nno baseline at ${file}: run with --update-baseline`);
    return recordOnly ? 0 : 1;
  }
  const baseline = JSON.parse(readFileSync(file, "utf8")) as Baseline;
  const { rows, failed } = compare(roundRatios[0] ?? {}, baseline);
  const where = relative(process.cwd(), file) || file;
  const same = baseline.machine.cpuModel === report.machine.cpuModel;
  io.out(
    `\n${recordOnly ? "For the record (not gating)" : "CI"}: ratios against ${where}, recorded on "${baseline.machine.cpuModel}"${same ? "" : ` — a different CPU from this one ("${report.machine.cpuModel}")`}:`,
  );
  io.out(comparisonTable(rows));
  if (recordOnly) return 0;
  io.out(failed ? "\nCI: FAILED (a ratio regressed past its limit, or is missing)" : "\nCI: ok");
  return failed ? 1 : 0;
}

/** What {@link benchReport} puts together. */
interface ReportParts {
  startedAt: Date;
  argv: readonly string[];
  settings: RunSettings;
  repeat: number;
  options: BenchOptions;
  machine: BenchReport["machine"];
  availability: BenchReport["availability"];
  input: MatrixInput;
  codecNames: string[];
  codecs: BenchReport["codecs"];
  results: BenchReport["cases"];
  summaries: BenchReport["summaries"];
}

/** The report of one round of measurements (the JSON report's shape). */
function benchReport(parts: ReportParts): BenchReport {
  const { startedAt, argv, settings, repeat, options, machine, availability, input } = parts;
  const { codecNames, codecs, results, summaries } = parts;
  return {
    tool: "nearwire-bench",
    formatVersion: 1,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    command: [...argv],
    settings: {
      ...settings,
      repeat,
      profile: options.ci ? "ci" : options.full ? "full" : isCustom(options) ? "custom" : "default",
    },
    machine,
    availability,
    found: {
      transports: input.transports.map((t) => ({
        id: t.id,
        layer: t.layer,
        baseline: t.baseline,
      })),
      codecs: codecNames,
    },
    messagesFromPackage: true,
    codecs,
    cases: results,
    summaries,
  };
}

/**
 * The exit code of a CI run: the A/B gate's verdict when the base was measured (with the
 * committed baseline printed beside it as a record), else the baseline check.
 */
function ciExit(
  options: BenchOptions,
  report: BenchReport,
  baseSha: string | undefined,
  ab: ReturnType<typeof prepareBase> | undefined,
  roundRatios: Record<string, number>[],
  io: BenchIo,
  exit: number,
): number {
  if (report.ab !== undefined) {
    io.out(
      `\nA/B gate: this tree ÷ base ${report.ab.base.rev}${baseSha ? ` (${baseSha.slice(0, 12)})` : ""}, same run, interleaved:`,
    );
    io.out(abTable(report.ab.rows));
    const regressed = report.ab.rows.filter((r) => r.status === "REGRESSED");
    io.out(
      regressed.length > 0
        ? `\nCI: FAILED (${regressed.length} row(s) regressed against the base)`
        : "\nCI: ok (no row regressed against the base)",
    );
    ciCheck(options, roundRatios, report, io, true);
    return Math.max(exit, regressed.length > 0 ? 1 : 0);
  }
  if (ab !== undefined && "unavailable" in ab)
    io.out(`\nA/B gate unavailable (${ab.unavailable}): gating on the committed baseline instead`);
  return Math.max(exit, ciCheck(options, roundRatios, report, io, false));
}
