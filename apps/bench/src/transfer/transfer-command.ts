import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DURABILITY_MODES, type Durability } from "@nearwire/transfer";
import { type BenchOptions, list, regex, withEmptyOptionalValues } from "../cli/args.js";
import { findGo } from "../measure/go-build.js";
import { defaultPin, envSuffix, type MachineInfo, machineInfo } from "../measure/machine.js";
import { loadPlugins } from "../measure/plugins.js";
import { textTable } from "../report/format.js";
import { runTransferBench, type TransferReport } from "./transfer-bench.js";
import {
  GO_SEED_TRANSPORTS,
  type TransferCase,
  type TransferProfile,
  transferPlan,
} from "./transfer-plan.js";
import { transferMarkdown, transferTables } from "./transfer-report.js";

/** Usage of `nearwire-bench transfer`. */
export const TRANSFER_USAGE = `nearwire-bench transfer [options]

The @nearwire/transfer benchmark on its own: the published scenario (2 MiB uploads, 10 concurrent
clients), 1 GiB file-to-file and memory-to-memory transfers beside cp and a bare node:net
pipeline, and RSS growth for 1 GiB and for 10 concurrent 100 MiB transfers. About 5 minutes.

  --small                 the profile the default nearwire-bench run includes (64 MiB, about a minute)
  --full                  every transport and codec (several minutes more)
  --filter <regex>        keep cases whose key (transfer-seed:uds/raw/2MiBx10, ...) matches
  --transports <list>     uds,tcp,grpc-uds,shm-ring-spin,shm-ring-adaptive,shm-ring-park,go-netrpc
  --codecs <list>         json,msgpack,protobuf,flatbuffers,raw
  --durable <mode>        the servers' durable option: full (the default: a checkpoint every
                          8 MiB), commit (fsync at the commit only) or none (no fsync)
  --pin / --no-pin        server on core 1, client on core 0 (default: on when possible)
  --json [file]           the report as JSON (default apps/bench/out/<timestamp>/transfer.json)
  --markdown [file]       the report as Markdown (default .../transfer.md); "-" for stdout
  --list                  print the selected case keys and exit
`;

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Transport ids the transfer mode knows (RPC transports; not the engine-only `memory`). */
const TRANSFER_TRANSPORTS = [
  "uds",
  "tcp",
  "grpc-uds",
  "shm-ring-spin",
  "shm-ring-adaptive",
  "shm-ring-park",
];
const TRANSFER_CODECS = ["json", "msgpack", "protobuf", "flatbuffers", "raw"];

/** Selection of transfer cases (shared with the main run). */
export interface TransferSelection {
  profile: TransferProfile;
  filter?: RegExp | undefined;
  transports?: readonly string[] | undefined;
  codecs?: readonly string[] | undefined;
}

/** The cases a selection makes from the transports that load here. */
export async function selectTransferCases(sel: TransferSelection): Promise<TransferCase[]> {
  // One package at a time: one that fails to load leaves only its own transports out.
  const found: string[] = [];
  for (const pkg of ["@nearwire/uds", "@nearwire/grpc-uds", "@nearwire/shm-ring"] as const) {
    const plugins = await loadPlugins([pkg]).catch(() => undefined);
    for (const t of plugins?.transports ?? [])
      if (TRANSFER_TRANSPORTS.includes(t.id) && !found.includes(t.id)) found.push(t.id);
  }
  if (!("missing" in findGo())) found.push(...GO_SEED_TRANSPORTS);
  const transports = found.filter(
    (id) => sel.transports === undefined || sel.transports.some((p) => id.startsWith(p)),
  );
  const codecs = TRANSFER_CODECS.filter((c) => sel.codecs === undefined || sel.codecs.includes(c));
  return transferPlan(
    sel.profile,
    { transports, codecs },
    (c) => sel.filter === undefined || sel.filter.test(c.key),
  );
}

/** `nearwire-bench transfer …`: returns the exit code. */
export async function runTransferCommand(argv: readonly string[]): Promise<number> {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(withEmptyOptionalValues(argv, OPTIONAL_VALUE)).values;
    if (values.small === true && values.full === true)
      throw new Error("--small and --full together");
    if (values.durable !== undefined && !DURABILITY_MODES.includes(values.durable as Durability))
      throw new Error(`--durable ${values.durable}: not one of ${DURABILITY_MODES.join(", ")}`);
  } catch (err) {
    process.stderr.write(`nearwire-bench transfer: ${(err as Error).message}\n\n${TRANSFER_USAGE}`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(TRANSFER_USAGE);
    return 0;
  }
  let selection: Omit<TransferSelection, "profile">;
  try {
    selection = {
      filter: values.filter === undefined ? undefined : regex(values.filter),
      transports: list(values.transports),
      codecs: list(values.codecs),
    };
  } catch (err) {
    process.stderr.write(`nearwire-bench transfer: ${(err as Error).message}\n`);
    return 2;
  }
  const profile: TransferProfile =
    values.small === true ? "small" : values.full === true ? "full" : "default";
  const cases = await selectTransferCases({ profile, ...selection });
  const toStdout = values.markdown === "-";
  const out = (l: string) => (toStdout ? process.stderr : process.stdout).write(`${l}\n`);
  if (values.list === true) {
    for (const c of cases) out(c.key);
    return 0;
  }
  const machine = machineInfo();
  const durable = (values.durable ?? "full") as Durability;
  const pin =
    (values.pin === true ? true : values["no-pin"] === true ? false : defaultPin(machine)) &&
    machine.tasksetAvailable;
  out(
    `nearwire-bench transfer  node ${machine.node}  cpu "${machine.cpuModel}" x${machine.cores}  profile ${profile}  ${cases.length} case(s)  pinning ${pin ? "on" : "off"}${durable === "full" ? "" : `  durable ${durable}`}${envSuffix(machine)}`,
  );
  const report = await runTransferBench(cases, { profile, pin, out, durable });
  printTransferTables(report, out);
  const stamp = report.startedAt.replace(/[:.]/g, "-");
  const none = values.json === undefined && values.markdown === undefined;
  const dir = join(PACKAGE_DIR, "out", stamp);
  const jsonFile = values.json === "" || none ? join(dir, "transfer.json") : values.json;
  const mdFile = values.markdown === "" || none ? join(dir, "transfer.md") : values.markdown;
  const full = {
    tool: "nearwire-bench",
    command: ["transfer", ...argv],
    machine,
    transfer: report,
  };
  if (jsonFile !== undefined) {
    mkdirSync(dirname(resolve(jsonFile)), { recursive: true });
    writeFileSync(jsonFile, `${JSON.stringify(full, null, 1)}\n`);
    out(`written: ${jsonFile}`);
  }
  if (mdFile === "-") process.stdout.write(`${transferMarkdown(report)}\n`);
  else if (mdFile !== undefined) {
    mkdirSync(dirname(resolve(mdFile)), { recursive: true });
    writeFileSync(
      mdFile,
      `${transferMarkdownHead(full.command, machine)}\n\n${transferMarkdown(report)}\n`,
    );
    out(`written: ${mdFile}`);
  }
  return report.runs.some((r) => r.error !== undefined) ? 1 : 0;
}

/** The Markdown file's title and what it ran: the command, the machine, the environment. */
export function transferMarkdownHead(command: string[], machine: MachineInfo): string {
  const env = machine.env === undefined ? "" : `; environment \`${machine.env.join(" ")}\``;
  return `# nearwire-bench transfer\n\nCommand \`nearwire-bench ${command.join(" ")}\`; ${machine.cpuModel} ×${machine.cores}, Node.js ${machine.node}, ${machine.platform} ${machine.kernel}${env}.`;
}

/** Prints the transfer tables on the terminal. */
export function printTransferTables(report: TransferReport, out: (line: string) => void): void {
  for (const t of transferTables(report)) out(`\n${t.title}\n${textTable(t.headers, t.rows)}`);
}

const OPTIONAL_VALUE = new Set(["--json", "--markdown"]);

function parse(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      small: { type: "boolean" },
      full: { type: "boolean" },
      filter: { type: "string" },
      transports: { type: "string" },
      codecs: { type: "string" },
      durable: { type: "string" },
      pin: { type: "boolean" },
      "no-pin": { type: "boolean" },
      json: { type: "string" },
      markdown: { type: "string" },
      list: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/**
 * The transfer cases of a main `nearwire-bench` run: the small profile by default, the full
 * one with `--full`, none in `--ci` (minutes of disk-bound work that ratios cannot gate) or
 * when `--messages`/`--sizes` select the message matrix; `--filter`, `--transports` and
 * `--codecs` apply.
 */
export async function mainRunTransferCases(options: BenchOptions): Promise<TransferCase[]> {
  if (options.ci || options.messages !== undefined || options.sizes !== undefined) return [];
  return selectTransferCases({
    profile: options.full ? "full" : "small",
    filter: options.filter,
    transports: options.transports,
    codecs: options.codecs,
  });
}

/** Measures the transfer section of a main run (after the transport matrix) and prints it. */
export async function measureTransferSection(
  cases: readonly TransferCase[],
  options: BenchOptions,
  pin: boolean,
  out: (line: string) => void,
): Promise<TransferReport | undefined> {
  if (cases.length === 0) return undefined;
  out(`\ntransfer (@nearwire/transfer): ${cases.length} case(s)`);
  const report = await runTransferBench(cases, {
    profile: options.full ? "full" : "small",
    pin,
    out,
  });
  printTransferTables(report, out);
  return report;
}
