import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Code, NearwireError } from "@nearwire/core";
import { fmtCount, fmtNs, fmtRatio, markdownTable, textTable } from "../report/format.js";
import { median, spread } from "../report/stats.js";
import { type BenchReport, runMetric } from "../report/summary.js";

/** Usage of `nearwire-bench compare`. */
export const COMPARE_USAGE = `nearwire-bench compare <base.json> <new.json> [--markdown <file>|-]

Compares two saved reports row by row: new ÷ base of each case's p50 (latency) or msgs/s
(throughput, stream), the range of that change over their runs, and a verdict: faster or slower
when both sides have at least 2 runs, their ranges do not overlap and the change is more than
10 %, else within noise. A row with fewer runs on a side gets no verdict ("needs --repeat"):
one run cannot tell a change from run-to-run noise, so measure both with --repeat 3.
  --markdown <file>   also write the comparison as Markdown (- = stdout; the table then goes to stderr)
`;

/** A change must be larger than this (10 %) to be called faster or slower. */
export const NOISE_FRACTION = 0.1;

/**
 * Runs each side needs before a row may be called faster or slower: with one run there is no
 * range to tell a change from the noise between fresh processes.
 */
export const MIN_RUNS_FOR_VERDICT = 2;

/**
 * `needs --repeat`: a side has fewer than {@link MIN_RUNS_FOR_VERDICT} runs, so the change,
 * whatever its size, is not told apart from noise.
 */
export type Verdict =
  | "faster"
  | "slower"
  | "within noise"
  | "needs --repeat"
  | "added"
  | "removed"
  | "failed";

const VERDICTS: readonly Verdict[] = [
  "faster",
  "slower",
  "within noise",
  "needs --repeat",
  "added",
  "removed",
  "failed",
];

export interface CompareRow {
  key: string;
  /** `p50` (latency; lower is better) or `msgs/s` (higher is better). */
  metric: "p50" | "msgs/s";
  base?: number;
  next?: number;
  baseRuns: number[];
  nextRuns: number[];
  /** next ÷ base of the medians. */
  change?: number;
  /** Range of the change over the runs: min(next) ÷ max(base) … max(next) ÷ min(base). */
  changeRange?: [number, number];
  verdict: Verdict;
}

export interface Comparison {
  rows: CompareRow[];
  /** Both files' machine, Node and date. */
  base: { cpuModel: string; node: string; date: string };
  next: { cpuModel: string; node: string; date: string };
  sameMachine: boolean;
}

function runsOf(
  report: BenchReport,
): Map<string, { mode: string; runs: number[]; error?: string }> {
  const out = new Map<string, { mode: string; runs: number[]; error?: string }>();
  for (const c of report.cases) {
    const runs = c.runs.map((r) => runMetric(c.spec.mode, r)).filter((v) => Number.isFinite(v));
    out.set(c.spec.key, {
      mode: c.spec.mode,
      runs,
      ...(c.error === undefined ? {} : { error: c.error }),
    });
  }
  return out;
}

/** Compares two reports case by case (see COMPARE_USAGE). */
export function compareReports(base: BenchReport, next: BenchReport): Comparison {
  const a = runsOf(base);
  const b = runsOf(next);
  const keys = [...a.keys(), ...[...b.keys()].filter((k) => !a.has(k))];
  const rows = keys.map((key): CompareRow => {
    const x = a.get(key);
    const y = b.get(key);
    const mode = (x ?? y)?.mode;
    const metric = mode === "latency" ? "p50" : "msgs/s";
    const row: CompareRow = {
      key,
      metric,
      baseRuns: x?.runs ?? [],
      nextRuns: y?.runs ?? [],
      verdict: "within noise",
    };
    if (x !== undefined && x.runs.length > 0) row.base = median(x.runs);
    if (y !== undefined && y.runs.length > 0) row.next = median(y.runs);
    if (x === undefined) return { ...row, verdict: "added" };
    if (y === undefined) return { ...row, verdict: "removed" };
    if (row.base === undefined || row.next === undefined) return { ...row, verdict: "failed" };
    const [bLo, bHi] = spread(x.runs);
    const [nLo, nHi] = spread(y.runs);
    row.change = row.next / row.base;
    row.changeRange = [nLo / bHi, nHi / bLo];
    if (Math.min(x.runs.length, y.runs.length) < MIN_RUNS_FOR_VERDICT)
      return { ...row, verdict: "needs --repeat" };
    const overlap = nLo <= bHi && bLo <= nHi;
    const big = Math.abs(row.change - 1) > NOISE_FRACTION;
    if (!overlap && big) {
      const up = row.change > 1;
      row.verdict = (metric === "p50") === up ? "slower" : "faster";
    }
    return row;
  });
  const who = (r: BenchReport) => ({
    cpuModel: r.machine.cpuModel,
    node: r.machine.node,
    date: r.startedAt,
  });
  return {
    rows,
    base: who(base),
    next: who(next),
    sameMachine: base.machine.cpuModel === next.machine.cpuModel,
  };
}

const HEADERS = [
  "case",
  "metric",
  "base",
  "new",
  "new ÷ base",
  "range over runs",
  "runs",
  "verdict",
];

function cells(r: CompareRow): string[] {
  const fmt = r.metric === "p50" ? fmtNs : fmtCount;
  return [
    r.key,
    r.metric,
    fmt(r.base),
    fmt(r.next),
    fmtRatio(r.change),
    r.changeRange ? `${fmtRatio(r.changeRange[0])} – ${fmtRatio(r.changeRange[1])}` : "—",
    `${r.baseRuns.length} / ${r.nextRuns.length}`,
    r.verdict,
  ];
}

function header(c: Comparison, baseName: string, nextName: string): string[] {
  const line = (name: string, m: Comparison["base"]) =>
    `${name}: "${m.cpuModel}", node ${m.node}, ${m.date}`;
  return [
    `base ${line(baseName, c.base)}`,
    `new  ${line(nextName, c.next)}`,
    ...(c.sameMachine
      ? []
      : [
          `warning: different machines ("${c.base.cpuModel}" vs "${c.next.cpuModel}"); the changes mix machine and code`,
        ]),
  ];
}

function counts(c: Comparison): string {
  const n = (v: Verdict) => c.rows.filter((r) => r.verdict === v).length;
  return VERDICTS.filter((v) => n(v) > 0)
    .map((v) => `${n(v)} ${v}`)
    .join(", ");
}

const RULE = `new ÷ base of p50 (latency, lower is better) or msgs/s (higher is better); range = min(new) ÷ max(base) – max(new) ÷ min(base) over the runs; faster/slower when both sides have ≥ ${MIN_RUNS_FOR_VERDICT} runs, the runs' ranges do not overlap and the change is > 10 %, else within noise.`;

/**
 * The line under the table when a row got no verdict for want of runs, or undefined: says why
 * and what to run.
 */
function repeatAdvice(c: Comparison): string | undefined {
  const n = c.rows.filter((r) => r.verdict === "needs --repeat").length;
  if (n === 0) return undefined;
  return `${n} row(s) have fewer than ${MIN_RUNS_FOR_VERDICT} runs on a side: no faster/slower verdict, since one run cannot tell a change from run-to-run noise. Measure both sides with --repeat 3 (or more) and compare again.`;
}

/** The comparison as a terminal table. */
export function compareText(c: Comparison, baseName: string, nextName: string): string {
  return [
    ...header(c, baseName, nextName),
    "",
    textTable(HEADERS, c.rows.map(cells)),
    "",
    RULE,
    ...(repeatAdvice(c) === undefined ? [] : [repeatAdvice(c) as string]),
    counts(c),
  ].join("\n");
}

/** The comparison as Markdown (what CI posts on a pull request). */
export function compareMarkdown(c: Comparison, baseName: string, nextName: string): string {
  const line = (m: Comparison["base"]) => `\`${m.cpuModel}\`, node ${m.node}, ${m.date}`;
  return [
    "## nearwire-bench: comparison",
    "",
    `- base \`${baseName}\`: ${line(c.base)}`,
    `- new \`${nextName}\`: ${line(c.next)}`,
    ...(c.sameMachine
      ? []
      : [
          "",
          `> **Warning:** different machines (\`${c.base.cpuModel}\` vs \`${c.next.cpuModel}\`): the changes mix machine and code.`,
        ]),
    "",
    `**${counts(c)}**`,
    "",
    markdownTable(HEADERS, c.rows.map(cells)),
    "",
    RULE,
    "",
    ...(repeatAdvice(c) === undefined ? [] : [`> ${repeatAdvice(c)}`, ""]),
  ].join("\n");
}

/** Parsed `compare` arguments (argv after `compare`). */
export function parseCompareArgs(argv: readonly string[]): {
  base: string;
  next: string;
  markdown?: string;
  help: boolean;
} {
  let parsed: ReturnType<typeof parseCompare>;
  try {
    parsed = parseCompare([...argv]);
  } catch (cause) {
    throw new NearwireError(Code.InvalidArgument, (cause as Error).message, { cause });
  }
  const help = parsed.values.help === true;
  const [base, next, ...rest] = parsed.positionals;
  if (!help && (base === undefined || next === undefined || rest.length > 0))
    throw new NearwireError(
      Code.InvalidArgument,
      `compare takes two report files (got ${parsed.positionals.length})`,
    );
  return {
    base: base ?? "",
    next: next ?? "",
    help,
    ...(parsed.values.markdown === undefined ? {} : { markdown: parsed.values.markdown }),
  };
}

function parseCompare(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: { markdown: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
}

/** Runs `nearwire-bench compare`; returns the exit code (0, or 2 for a bad command line). */
export function runCompare(argv: readonly string[]): number {
  let args: ReturnType<typeof parseCompareArgs>;
  try {
    args = parseCompareArgs(argv);
  } catch (err) {
    if (err instanceof NearwireError) {
      process.stderr.write(`nearwire-bench compare: ${err.message}\n\n${COMPARE_USAGE}`);
      return 2;
    }
    throw err;
  }
  if (args.help) {
    process.stdout.write(COMPARE_USAGE);
    return 0;
  }
  const load = (file: string): BenchReport | string => {
    try {
      const r = JSON.parse(readFileSync(file, "utf8")) as BenchReport;
      if (r.tool !== "nearwire-bench" || !Array.isArray(r.cases))
        return `${file} is not a nearwire-bench report.json`;
      return r;
    } catch (err) {
      return `cannot read ${file}: ${(err as Error).message}`;
    }
  };
  const base = load(args.base);
  const next = load(args.next);
  for (const r of [base, next]) {
    if (typeof r === "string") {
      process.stderr.write(`nearwire-bench compare: ${r}\n`);
      return 2;
    }
  }
  const c = compareReports(base as BenchReport, next as BenchReport);
  const toStdout = args.markdown === "-";
  (toStdout ? process.stderr : process.stdout).write(`${compareText(c, args.base, args.next)}\n`);
  if (args.markdown !== undefined) {
    const md = compareMarkdown(c, args.base, args.next);
    if (toStdout) process.stdout.write(md);
    else {
      mkdirSync(dirname(resolve(args.markdown)), { recursive: true });
      writeFileSync(args.markdown, md);
      process.stdout.write(`written: ${args.markdown}\n`);
    }
  }
  return 0;
}
