#!/usr/bin/env node
import { parseArgs } from "node:util";
import { Code, type Codec, codeName, NearwireError, type Transport } from "@nearwire/core";
import { createTransferClient, type TransferClient } from "../client/client.js";
import type { TransferResult } from "../client/options.js";
import { loadTransferCodec } from "../codecs/load.js";
import { createTransferHandlers } from "../server/handlers.js";
import { TransferService } from "../service.js";
import { createProgressBar } from "./progress-bar.js";
import { cliTransport, DEFAULT_ADDRESS } from "./transport.js";

const USAGE = `usage:
  nearwire-transfer serve --root DIR [--address A] [--codec C] [--sync-every-bytes N]
  nearwire-transfer put FILE NAME [--address A] [--codec C] [--chunk-bytes N] [--retries N]
  nearwire-transfer get NAME FILE [--address A] [--codec C] [--chunk-bytes N] [--retries N]
  nearwire-transfer status NAME [--address A] [--codec C]
address: a uds/tcp address (default $NEARWIRE_TRANSFER_ADDRESS or ${DEFAULT_ADDRESS})
codec: json, msgpack (default), protobuf, flatbuffers or raw; the same on both sides
--retries N: reconnect and resume up to N times after a lost connection (default 0)`;

/** What every command gets: the parsed flags, the transport and the codec. */
interface Run {
  values: Record<string, string | boolean | undefined>;
  args: string[];
  transport: Transport;
  codec: Codec;
}

/** What the client commands (put, get, status) get besides: the client flags and SIGINT. */
interface ClientRun extends Run {
  chunkBytes: number | undefined;
  retries: number;
  signal: AbortSignal;
}

/** Runs the CLI with `argv` (without node and the script); resolves to the exit code. */
async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      root: { type: "string" },
      address: { type: "string" },
      codec: { type: "string", default: "msgpack" },
      "chunk-bytes": { type: "string" },
      "sync-every-bytes": { type: "string" },
      retries: { type: "string", default: "0" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, ...args] = positionals;
  if (values.help === true || command === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return values.help === true ? 0 : 2;
  }
  const address = values.address ?? process.env.NEARWIRE_TRANSFER_ADDRESS ?? DEFAULT_ADDRESS;
  const codec = await loadTransferCodec(values.codec);
  const run: Run = { values, args, transport: cliTransport(address), codec };
  if (command === "serve") return serve(run);
  const ac = new AbortController();
  const clientRun: ClientRun = {
    ...run,
    chunkBytes: int("chunk-bytes", values["chunk-bytes"]),
    retries: int("retries", values.retries) ?? 0,
    signal: ac.signal,
  };
  process.once("SIGINT", () => ac.abort());
  if (command === "put" || command === "get") return transfer(clientRun, command);
  if (command === "status") return status(clientRun);
  return usage();
}

async function serve({ values, args, transport, codec }: Run): Promise<number> {
  const root = values.root;
  if (typeof root !== "string" || args.length > 0) return usage();
  const syncEveryBytes = int("sync-every-bytes", values["sync-every-bytes"]);
  const server = transport.createServer();
  server.addService(
    TransferService,
    createTransferHandlers({
      root,
      ...(syncEveryBytes === undefined ? {} : { syncEveryBytes }),
    }),
    { codec },
  );
  await server.listen();
  process.stdout.write(`serving ${server.address} root ${root} codec ${codec.name}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  await server.close({ graceMs: 1000 });
  return 0;
}

async function transfer(run: ClientRun, command: "put" | "get"): Promise<number> {
  if (run.args.length !== 2) return usage();
  const [a, b] = run.args as [string, string];
  const bar = createProgressBar({
    stream: process.stderr,
    label: `${command} ${command === "put" ? b : a}`,
  });
  const options = {
    signal: run.signal,
    onProgress: (p: { transferredBytes: number; totalBytes: number }) =>
      bar.update(p.transferredBytes, p.totalBytes),
  };
  const result = await withClient(run, (client) =>
    command === "put" ? client.upload(a, b, options) : client.download(a, b, options),
  );
  bar.finish();
  report(command, result);
  return 0;
}

async function status(run: ClientRun): Promise<number> {
  if (run.args.length !== 1) return usage();
  const st = await withClient(run, (client) => client.status(run.args[0] as string));
  process.stdout.write(`${JSON.stringify(st)}\n`);
  return 0;
}

/** Connects and runs `op`; after UNAVAILABLE, reconnects (the transfer resumes) up to `--retries` times. */
async function withClient<T>(
  run: ClientRun,
  op: (client: TransferClient) => Promise<T>,
): Promise<T> {
  const { chunkBytes, retries } = run;
  for (let attempt = 0; ; attempt++) {
    try {
      const connection = await run.transport.connect();
      try {
        return await op(
          createTransferClient({
            connection,
            codec: run.codec,
            ...(chunkBytes ? { chunkBytes } : {}),
          }),
        );
      } finally {
        await connection.close();
      }
    } catch (err) {
      if (!(err instanceof NearwireError) || err.code !== Code.Unavailable || attempt >= retries)
        throw err;
      process.stderr.write(`\nconnection lost (${err.message}); retrying\n`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

function int(name: string, v: string | boolean | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new NearwireError(Code.InvalidArgument, `--${name} ${v} is not a whole number`);
  return n;
}

function report(verb: string, r: TransferResult): void {
  process.stdout.write(
    `${verb} ${r.name} ${r.sizeBytes} B sha256 ${r.sha256} resumed-from ${r.resumedFromBytes} B\n`,
  );
}

function usage(): number {
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const e = NearwireError.from(err);
    process.stderr.write(`\nnearwire-transfer: ${codeName(e.code)}: ${e.message}\n`);
    process.exitCode = 1;
  },
);
