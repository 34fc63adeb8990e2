import { parseArgs } from "node:util";
import { Code, NearwireError } from "@nearwire/core";
import { MESSAGE_NAMES, type MessageName, SIZES } from "../measure/case-spec.js";

/** Parsed command line of `nearwire-bench`. */
export interface BenchOptions {
  /** Run every transport × codec × message × size (`--full`). Default: off, the default matrix (≈6 min). */
  full: boolean;
  /** CI mode: small fixed matrix, ratio check against the baseline file (`--ci`). */
  ci: boolean;
  /** Rewrite the baseline file from this run (`--update-baseline`, implies `--ci`). */
  updateBaseline: boolean;
  /** Baseline file for CI mode. Default: `apps/bench/baseline.json`. */
  baselineFile: string | undefined;
  /** Base revision of the A/B gate (`--base`). Default: `HEAD` with uncommitted changes, else `HEAD~1`. */
  baseRev: string | undefined;
  /** An already-built tree to use as the A/B base instead of checking one out (`--base-dir`). */
  baseDir: string | undefined;
  /** Gate self-test: the current side busy-waits this many µs before every socket write. */
  selfTestSlowdownUs: number | undefined;
  /** Print the version and exit (`--version`). */
  version: boolean;
  /** Regex matched against case ids (`transport/codec/payload`) and keys (`mode:id`). */
  filter: RegExp | undefined;
  /** Transport ids or prefixes (`shm-ring` selects every wait mode and its channel layer). */
  transports: string[] | undefined;
  /** Codec names (`json,raw`). */
  codecs: string[] | undefined;
  /** Messages (`tick,request,metric,chunk`; `chunk` is the payload-size sweep). */
  messages: MessageName[] | undefined;
  /** Payload sizes of the sweep, in bytes (`--sizes 64B,64KiB`). */
  sizes: number[] | undefined;
  /** Measuring time per case and repeat, in ms (`--duration 0.5s`, `--duration 300ms`). */
  durationMs: number | undefined;
  /** Warm-up time per case, in ms, before measuring (`--warmup`). */
  warmupMs: number | undefined;
  /** Repeats per case (fresh processes each time); the report shows their spread. */
  repeat: number | undefined;
  /** Pin server to core 1 and client to core 0 with taskset; undefined = auto. */
  pin: boolean | undefined;
  /** Seed of the payload bytes. Default 1. */
  seed: number;
  /** JSON output file; "" = default path; undefined = not requested. */
  json: string | undefined;
  /** Markdown output file; "" = default path; undefined = not requested. */
  markdown: string | undefined;
  /** SVG output directory; "" = default path; undefined = not requested. */
  svg: string | undefined;
  /** Self-contained HTML report file; "" = default path; undefined = not requested. */
  html: string | undefined;
  /** Include the hand-written baselines matching the selected transports. Default true. */
  baselines: boolean;
  /** Write a V8 CPU profile of every server and client process into this directory (`--cpu-prof`). */
  cpuProfDir: string | undefined;
  /** Print the selected cases and exit (`--list`). */
  list: boolean;
  /** Print usage and exit (`--help`). */
  help: boolean;
}

/** Usage text printed by `--help`. */
export const USAGE = `nearwire-bench [options]                 measure (the default matrix: ≈6 min)
nearwire-bench compare <base.json> <new.json> [--markdown <file>|-]   (see compare --help)
nearwire-bench transfer [options]        the @nearwire/transfer benchmark alone (see transfer --help)

Selection
  --full                  every transport x codec x message x size (default: the ≈6 min matrix)
  --filter <regex>        keep cases whose id (transport/codec/payload) or key (mode:id) matches
  --transports <list>     uds,tcp,grpc-uds,shm-ring[-spin|-park|-adaptive],uds-channel,bare-net-uds,...
                          go (the Go yardstick: go-grpc-uds, go-grpc-tcp, go-uds; needs go on PATH)
  --codecs <list>         json,msgpack,protobuf,flatbuffers,raw
  --messages <list>       tick,request,metric,chunk (chunk = the payload-size sweep)
  --sizes <list>          64B,1KiB,64KiB,1MiB
  --no-baselines          do not add the bare node:net / grpc-js baselines automatically
  --list                  print the selected cases and exit
Measurement
  --duration <t>          measuring time per case, e.g. 0.5s or 300ms (default 250ms)
  --warmup <t>            warm-up per case before measuring (default 500ms, and at least 5000 calls, until steady)
  --repeat <n>            fresh processes per case n times; the report shows the spread (default 1)
  --pin / --no-pin        server on core 1, client on core 0 via taskset (default: on when possible)
  --seed <n>              seed of the payload bytes (default 1)
  --cpu-prof <dir>        write a V8 CPU profile of each server and client process into <dir>
Output (default: all four under apps/bench/out/<timestamp>/)
  --json [file]  --markdown [file]  --svg [dir]  --html [file]
                          (--json - / --markdown -: that report to stdout, progress to stderr)
CI
  --ci                    small fixed matrix; compare ratios to apps/bench/baseline.json; exit 1 on regression
  --update-baseline       run the CI matrix and rewrite the baseline (see README for thresholds)
  --baseline <file>       another baseline file (the record kept beside the A/B gate)
  --base <rev>            A/B base commit (default: HEAD with uncommitted changes, else HEAD~1)
  --base-dir <dir>        an already-built tree to use as the A/B base (no checkout, no build)
  --self-test-slowdown <us>  gate self-test: the current side waits <us> before each socket write
  --version               print the version and exit
`;

const OPTIONAL_VALUE = new Set(["--json", "--markdown", "--svg", "--html"]);

/**
 * `argv` with each of `optional` (output flags whose file is optional: `--json`, `--markdown`)
 * that has no value written as `--flag=`, so that `parseArgs` reads it as an empty value.
 */
export function withEmptyOptionalValues(
  argv: readonly string[],
  optional: ReadonlySet<string>,
): string[] {
  return argv.map((arg, i) => {
    const next = argv[i + 1];
    return optional.has(arg) && (next === undefined || next.startsWith("--")) ? `${arg}=` : arg;
  });
}

/** Parses `argv` (without node and script). Throws NearwireError INVALID_ARGUMENT on bad input. */
export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(withEmptyOptionalValues(argv, OPTIONAL_VALUE)).values;
  } catch (cause) {
    throw new NearwireError(Code.InvalidArgument, (cause as Error).message, { cause });
  }
  if (values.pin === true && values["no-pin"] === true) bad("--pin and --no-pin together");
  if (values.json === "-" && values.markdown === "-")
    bad("--json - and --markdown - together (only one report can go to stdout)");
  for (const flag of ["svg", "html"] as const)
    if (values[flag] === "-") bad(`--${flag} -: only --json and --markdown can write to stdout`);
  const updateBaseline = values["update-baseline"] === true;
  return {
    full: values.full === true,
    ci: values.ci === true || updateBaseline,
    updateBaseline,
    baselineFile: values.baseline,
    baseRev: values.base,
    baseDir: values["base-dir"],
    selfTestSlowdownUs:
      values["self-test-slowdown"] === undefined
        ? undefined
        : positiveInt("--self-test-slowdown", values["self-test-slowdown"], 1_000_000),
    version: values.version === true,
    filter: values.filter === undefined ? undefined : regex(values.filter),
    transports: list(values.transports),
    codecs: list(values.codecs),
    messages: list(values.messages)?.map(messageName),
    sizes: list(values.sizes)?.map(sizeBytes),
    durationMs:
      values.duration === undefined ? undefined : durationMs("--duration", values.duration),
    warmupMs: values.warmup === undefined ? undefined : durationMs("--warmup", values.warmup),
    repeat: values.repeat === undefined ? undefined : positiveInt("--repeat", values.repeat, 100),
    pin: values.pin === true ? true : values["no-pin"] === true ? false : undefined,
    seed: values.seed === undefined ? 1 : positiveInt("--seed", values.seed, 2 ** 31 - 1),
    json: values.json,
    markdown: values.markdown,
    svg: values.svg,
    html: values.html,
    baselines: values["no-baselines"] !== true,
    cpuProfDir: values["cpu-prof"],
    list: values.list === true,
    help: values.help === true,
  };
}

function parse(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      full: { type: "boolean" },
      ci: { type: "boolean" },
      "update-baseline": { type: "boolean" },
      baseline: { type: "string" },
      base: { type: "string" },
      "base-dir": { type: "string" },
      "self-test-slowdown": { type: "string" },
      version: { type: "boolean" },
      filter: { type: "string" },
      transports: { type: "string" },
      codecs: { type: "string" },
      messages: { type: "string" },
      sizes: { type: "string" },
      duration: { type: "string" },
      warmup: { type: "string" },
      repeat: { type: "string" },
      pin: { type: "boolean" },
      "no-pin": { type: "boolean" },
      seed: { type: "string" },
      "cpu-prof": { type: "string" },
      json: { type: "string" },
      markdown: { type: "string" },
      svg: { type: "string" },
      html: { type: "string" },
      "no-baselines": { type: "boolean" },
      list: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}

function bad(message: string): never {
  throw new NearwireError(Code.InvalidArgument, message);
}

/** A comma-separated option as a list; undefined when absent; INVALID_ARGUMENT when empty. */
export function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (items.length === 0) bad(`empty list "${value}"`);
  return items;
}

/** A `--filter` regex; INVALID_ARGUMENT when it does not compile. */
export function regex(source: string): RegExp {
  try {
    return new RegExp(source);
  } catch (cause) {
    throw new NearwireError(Code.InvalidArgument, `--filter "${source}" is not a valid regex`, {
      cause,
    });
  }
}

function messageName(name: string): MessageName {
  const lower = name.toLowerCase();
  if ((MESSAGE_NAMES as readonly string[]).includes(lower)) return lower as MessageName;
  return bad(`--messages: unknown message "${name}" (known: ${MESSAGE_NAMES.join(", ")})`);
}

/** `64B`, `1KiB`, `64KiB`, `1MiB`, or a plain byte count (1 B … 16 MiB). */
function sizeBytes(label: string): number {
  const known = SIZES[label];
  if (known !== undefined) return known;
  const m = /^(\d+)(B|KiB|MiB)?$/.exec(label);
  if (m === null)
    return bad(`--sizes: cannot read "${label}" (use 64B, 1KiB, 64KiB, 1MiB or a byte count)`);
  const n = Number(m[1]) * (m[2] === "MiB" ? 1024 * 1024 : m[2] === "KiB" ? 1024 : 1);
  if (n < 1 || n > 16 * 1024 * 1024) bad(`--sizes: ${n} B outside 1 B … 16 MiB`);
  return n;
}

/** `0.5s`, `300ms`, or a plain number of seconds; 10 ms … 10 min. */
function durationMs(flag: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text);
  if (m === null) return bad(`${flag}: cannot read "${text}" (use 0.5s or 300ms)`);
  const ms = Number(m[1]) * (m[2] === "ms" ? 1 : 1000);
  if (ms < 10 || ms > 600_000) bad(`${flag}: ${ms} ms outside 10 ms … 600000 ms`);
  return ms;
}

function positiveInt(flag: string, text: string, max: number): number {
  if (!/^\d+$/.test(text)) bad(`${flag}: "${text}" is not a positive integer`);
  const n = Number(text);
  if (n < 1 || n > max) bad(`${flag}: ${n} outside 1 … ${max}`);
  return n;
}
