import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchOptions } from "./args.js";
import type { CaseSpec, MessageName } from "./case-spec.js";
import { renderCharts } from "./charts.js";
import {
  type Baseline,
  compare,
  comparisonTable,
  computeRatios,
  makeBaseline,
  serializeBaseline,
} from "./ci.js";
import type { CodecResult } from "./codec-bench.js";
import { textTable } from "./format.js";
import { defaultPin, machineInfo } from "./machine.js";
import { renderMarkdown } from "./markdown-report.js";
import { buildCiMatrix, buildMatrix, type MatrixInput } from "./matrix.js";
import { loadPlugins } from "./plugins.js";
import { Progress } from "./progress.js";
import { type CaseResult, Orchestrator, type RunSettings } from "./runner.js";
import { type BenchReport, median, summarise } from "./summary.js";
import { allTables } from "./tables.js";

/** `apps/bench` (works from `src/` under tsx and from `dist/`). */
export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Rounds of the whole CI matrix that `--update-baseline` records the spread from. */
export const BASELINE_ROUNDS = 5;

const DEFAULTS = { durationMs: 250, warmupMs: 500, repeat: 1 };
const CI_DEFAULTS = { durationMs: 250, warmupMs: 500, repeat: 3 };

/** Where output goes and what it prints. */
export interface BenchIo {
  out: (line: string) => void;
  err: NodeJS.WriteStream;
}

const defaultIo: BenchIo = { out: (l) => process.stdout.write(`${l}\n`), err: process.stderr };

/** Runs the bench as the command line asks; returns the process exit code. */
export async function runBench(
  options: BenchOptions,
  argv: readonly string[],
  io: BenchIo = defaultIo,
): Promise<number> {
  const startedAt = new Date();
  const machine = machineInfo();
  const pin = (options.pin ?? defaultPin(machine)) && machine.tasksetAvailable;
  const base = options.ci ? CI_DEFAULTS : DEFAULTS;
  const settings: RunSettings = {
    durationMs: options.durationMs ?? base.durationMs,
    warmupMs: options.warmupMs ?? base.warmupMs,
    pin,
    seed: options.seed,
    ...(options.cpuProfDir === undefined ? {} : { cpuProfDir: options.cpuProfDir }),
  };
  const repeat = options.repeat ?? base.repeat;
  io.out(
    `nearwire-bench  node ${machine.node}  cpu "${machine.cpuModel}" x${machine.cores}  kernel ${machine.kernel}`,
  );
  io.out(
    `pinning ${pin ? "on (server core 1, client core 0)" : `off${options.pin === true ? " (taskset not available)" : ""}`}  seed ${settings.seed}  duration ${settings.durationMs} ms  warm-up ${settings.warmupMs} ms  repeat ${repeat}`,
  );

  const plugins = await loadPlugins();
  const codecNames = plugins.messages.codecs.map((c) => c.name);
  const input: MatrixInput = { transports: plugins.transports, codecs: codecNames };
  for (const a of plugins.availability)
    io.out(`  ${a.name}: ${a.status}${a.detail ? ` (${a.detail})` : ""}`);
  if (!plugins.messages.fromPackage)
    io.out("  @nearwire/bench-messages not usable: JSON stand-in messages, json codec only");

  const cases = options.ci ? buildCiMatrix(input) : buildMatrix(options, input);
  const codecJobs = codecPlan(options, codecNames);
  if (options.list) {
    for (const c of cases) io.out(c.key);
    for (const j of codecJobs) io.out(`codec:${j.codec}/${j.messages.join(",")}`);
    return 0;
  }
  io.out(`${cases.length} transport cases x ${repeat} run(s), ${codecJobs.length} codec job(s)`);

  const rounds = options.updateBaseline ? BASELINE_ROUNDS : 1;
  const roundRatios: Record<string, number>[] = [];
  let report: BenchReport | undefined;
  for (let round = 0; round < rounds; round++) {
    if (rounds > 1) io.out(`baseline round ${round + 1}/${rounds}`);
    const measured = await measureAll(cases, codecJobs, settings, repeat, options.ci, io);
    const summaries = summarise(measured.results, input);
    report = {
      tool: "nearwire-bench",
      formatVersion: 1,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: [...argv],
      settings: {
        ...settings,
        repeat,
        profile: options.ci
          ? "ci"
          : options.full
            ? "full"
            : isCustom(options)
              ? "custom"
              : "default",
      },
      machine,
      availability: plugins.availability,
      found: {
        transports: input.transports.map((t) => ({
          id: t.id,
          layer: t.layer,
          baseline: t.baseline,
        })),
        codecs: codecNames,
      },
      messagesFromPackage: plugins.messages.fromPackage,
      codecs: measured.codecs,
      cases: measured.results,
      summaries,
    };
    roundRatios.push(computeRatios(summaries, measured.codecs));
  }
  if (report === undefined) return 1;

  for (const t of allTables(report.codecs, report.summaries))
    io.out(`\n${t.title}\n${textTable(t.headers, t.rows)}`);
  writeOutputs(report, options, startedAt, io);

  let exit = report.summaries.some((s) => s.error !== undefined) ? 1 : 0;
  if (exit !== 0) io.out("\nsome cases failed (see the tables and the JSON report)");
  if (options.ci) exit = Math.max(exit, ciCheck(options, roundRatios, report, io));
  return exit;
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
  if (options.ci) return codecs.map((codec) => ({ codec, messages: ["tick"] }));
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

async function measureAll(
  cases: readonly CaseSpec[],
  codecJobs: readonly CodecJob[],
  settings: RunSettings,
  repeat: number,
  ci: boolean,
  io: BenchIo,
): Promise<{ results: CaseResult[]; codecs: CodecResult[] }> {
  const orchestrator = new Orchestrator(settings);
  const progress = new Progress((cases.length + codecJobs.length) * repeat, io.err);
  const results: CaseResult[] = cases.map((spec) => ({ spec, runs: [] }));
  const codecRuns: CodecResult[][] = [];
  const codecTimeMs = ci ? 150 : 200;
  try {
    for (let r = 0; r < repeat; r++) {
      for (const job of codecJobs) {
        const label = `codec ${job.codec}`;
        progress.start(label);
        try {
          codecRuns.push(await orchestrator.runCodec(job.codec, job.messages, codecTimeMs));
          progress.finish(label, "done");
        } catch (err) {
          progress.finish(label, `FAILED ${(err as Error).message}`);
        }
      }
      for (const res of results) {
        progress.start(res.spec.key);
        try {
          const run = await orchestrator.runCase(res.spec);
          res.runs.push(run);
          progress.finish(
            res.spec.key,
            run.latency
              ? `p50 ${(run.latency.p50Ns / 1e3).toFixed(1)} µs`
              : `${Math.round(run.msgsPerSec)} msgs/s`,
          );
        } catch (err) {
          res.error = (err as Error).message;
          progress.finish(res.spec.key, `FAILED ${res.error}`);
        }
      }
    }
  } finally {
    progress.end();
    orchestrator.close();
  }
  return { results, codecs: mergeCodecRuns(codecRuns.flat()) };
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
          encodeRme: median(g.map((x) => x.encodeRme)),
          decodeRme: median(g.map((x) => x.decodeRme)),
        };
  });
}

function stamp(d: Date): string {
  return d.toISOString().replace(/[:.]/g, "-");
}

/** Writes the JSON, Markdown and SVG outputs that were asked for (all three by default). */
function writeOutputs(
  report: BenchReport,
  options: BenchOptions,
  startedAt: Date,
  io: BenchIo,
): void {
  const none =
    options.json === undefined && options.markdown === undefined && options.svg === undefined;
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
  if (jsonFile !== undefined) {
    mkdirSync(dirname(resolve(jsonFile)), { recursive: true });
    writeFileSync(jsonFile, `${JSON.stringify(report, null, 1)}\n`);
    written.push(jsonFile);
  }
  if (mdFile !== undefined) {
    const mdDir = dirname(resolve(mdFile));
    mkdirSync(mdDir, { recursive: true });
    charts = charts.map((c) => relative(mdDir, resolve(c)) || basename(c));
    writeFileSync(mdFile, renderMarkdown(report, charts));
    written.push(mdFile);
  }
  io.out("\nwritten:");
  for (const f of written) io.out(`  ${f}`);
}

function ciCheck(
  options: BenchOptions,
  roundRatios: Record<string, number>[],
  report: BenchReport,
  io: BenchIo,
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
    return 1;
  }
  const baseline = JSON.parse(readFileSync(file, "utf8")) as Baseline;
  const { rows, failed } = compare(roundRatios[0] ?? {}, baseline);
  io.out(`\nCI ratios against ${relative(process.cwd(), file) || file}:`);
  io.out(comparisonTable(rows));
  io.out(failed ? "\nCI: FAILED (a ratio regressed past its limit, or is missing)" : "\nCI: ok");
  return failed ? 1 : 0;
}
