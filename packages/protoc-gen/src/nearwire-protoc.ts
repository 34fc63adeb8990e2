#!/usr/bin/env node
/**
 * nearwire-protoc: `.proto` files → TypeScript modules for nearwire, without protoc.
 *
 *     nearwire-protoc [-I dir]... --out dir file.proto...
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { generateFromProtoFiles } from "./proto-files.js";

const USAGE = `usage: nearwire-protoc [-I dir]... --out dir file.proto...

Writes dir/<name>_nearwire.ts for each file: message interfaces, service definitions and the
protobuf codec, for @nearwire/core and @nearwire/codec-protobuf.

  -o, --out dir         output directory (created if missing)
  -I, --proto_path dir  where imports are looked up, in order (repeatable); names in the output
                        are relative to the first one holding the file
  -h, --help            this text`;

function main(): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (err) {
    console.error(`nearwire-protoc: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  if (values.out === undefined || positionals.length === 0) {
    console.error(USAGE);
    return 2;
  }
  try {
    const files = generateFromProtoFiles(positionals, { includeDirs: values.proto_path ?? [] });
    for (const file of files) {
      const path = join(values.out, file.name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.content);
      console.log(`wrote ${path}`);
    }
    return 0;
  } catch (err) {
    console.error(`nearwire-protoc: ${(err as Error).message}`);
    return 1;
  }
}

function parse() {
  return parseArgs({
    allowPositionals: true,
    options: {
      out: { type: "string", short: "o" },
      proto_path: { type: "string", short: "I", multiple: true },
      help: { type: "boolean", short: "h" },
    },
  });
}

process.exitCode = main();
