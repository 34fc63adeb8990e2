#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { NearwireError } from "@nearwire/core";
import { parseBenchArgs, USAGE } from "./cli/args.js";
import { runBench } from "./cli/bench.js";
import { runCompare } from "./cli/compare.js";
import { runTransferCommand } from "./transfer/transfer-command.js";

/** `nearwire-bench`: see USAGE and apps/bench/README.md. */
async function main(argv: string[]): Promise<number> {
  if (argv[0] === "compare") return runCompare(argv.slice(1));
  if (argv[0] === "transfer") return runTransferCommand(argv.slice(1));
  let options: ReturnType<typeof parseBenchArgs>;
  try {
    options = parseBenchArgs(argv);
  } catch (err) {
    if (err instanceof NearwireError) {
      process.stderr.write(`nearwire-bench: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (options.version) {
    const pkg = new URL("../package.json", import.meta.url);
    const { version } = JSON.parse(readFileSync(pkg, "utf8")) as { version: string };
    process.stdout.write(`nearwire-bench ${version}\n`);
    return 0;
  }
  return runBench(options, argv);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(
      `nearwire-bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = 1;
  },
);
