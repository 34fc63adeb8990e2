#!/usr/bin/env node
import { parseArgs } from "node:util";
import { Code, codeName, NearwireError } from "@nearwire/core";
import { createUdsTransport } from "@nearwire/uds";
import { createTransferClient, type TransferResult } from "../client/client.js";
import { transferCodec } from "../codecs/table.js";
import { createTransferHandlers } from "../server/handlers.js";
import { TransferService } from "../service.js";
import { createProgressBar } from "./progress-bar.js";

const USAGE = `usage:
  nearwire-transfer serve --root DIR [--address A] [--codec C] [--sync-every-bytes N]
  nearwire-transfer put FILE NAME [--address A] [--codec C] [--chunk-bytes N] [--retries N]
  nearwire-transfer get NAME FILE [--address A] [--codec C] [--chunk-bytes N] [--retries N]
  nearwire-transfer status NAME [--address A] [--codec C]
address: a uds/tcp address (default $NEARWIRE_TRANSFER_ADDRESS or /tmp/nearwire-transfer.sock)
codec: json, msgpack (default), protobuf, flatbuffers or raw; the same on both sides
--retries N: reconnect and resume up to N times after a lost connection (default 0)`;

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
  const address =
    values.address ?? process.env.NEARWIRE_TRANSFER_ADDRESS ?? "/tmp/nearwire-transfer.sock";
  const codec = transferCodec(values.codec);
  const transport = createUdsTransport({ address });
  const int = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < 0)
      throw new NearwireError(Code.InvalidArgument, `--${name} ${v} is not a whole number`);
    return n;
  };

  if (command === "serve") {
    if (values.root === undefined || args.length > 0) return usage();
    const syncEveryBytes = int("sync-every-bytes", values["sync-every-bytes"]);
    const server = transport.createServer();
    server.addService(
      TransferService,
      createTransferHandlers({
        root: values.root,
        ...(syncEveryBytes === undefined ? {} : { syncEveryBytes }),
      }),
      { codec },
    );
    await server.listen();
    process.stdout.write(`serving ${server.address} root ${values.root} codec ${codec.name}\n`);
    await new Promise<void>((resolve) => {
      process.once("SIGTERM", resolve);
      process.once("SIGINT", resolve);
    });
    await server.close({ graceMs: 1000 });
    return 0;
  }

  const chunkBytes = int("chunk-bytes", values["chunk-bytes"]);
  const retries = int("retries", values.retries) ?? 0;
  const ac = new AbortController();
  process.once("SIGINT", () => ac.abort());

  /** Connects and runs `op`; after UNAVAILABLE, reconnects (the transfer resumes) up to `retries` times. */
  async function withClient<T>(
    op: (client: ReturnType<typeof createTransferClient>) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        const connection = await transport.connect();
        try {
          return await op(
            createTransferClient({ connection, codec, ...(chunkBytes ? { chunkBytes } : {}) }),
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

  const report = (verb: string, r: TransferResult) =>
    process.stdout.write(
      `${verb} ${r.name} ${r.sizeBytes} B sha256 ${r.sha256} resumed-from ${r.resumedFromBytes} B\n`,
    );

  if (command === "put" || command === "get") {
    if (args.length !== 2) return usage();
    const [a, b] = args as [string, string];
    const bar = createProgressBar({
      stream: process.stderr,
      label: `${command} ${command === "put" ? b : a}`,
    });
    const options = {
      signal: ac.signal,
      onProgress: (p: { transferredBytes: number; totalBytes: number }) =>
        bar.update(p.transferredBytes, p.totalBytes),
    };
    const result = await withClient((client) =>
      command === "put" ? client.upload(a, b, options) : client.download(a, b, options),
    );
    bar.finish();
    report(command, result);
    return 0;
  }

  if (command === "status") {
    if (args.length !== 1) return usage();
    const st = await withClient((client) => client.status(args[0] as string));
    process.stdout.write(`${JSON.stringify(st)}\n`);
    return 0;
  }
  return usage();
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
