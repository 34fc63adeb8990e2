#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { Code, type Codec, codeName, NearwireError, type Transport } from "@nearwire/core";
import { createTransferClient, type TransferClient } from "../client/client.js";
import type { TransferResult } from "../client/options.js";
import { fileSize } from "../client/upload.js";
import { loadTransferCodec } from "../codecs/load.js";
import { createTransferHandlers } from "../server/handlers.js";
import { TransferService } from "../service.js";
import { type Invocation, parseCli, USAGE } from "./args.js";
import { retryDelayMs } from "./backoff.js";
import { createProgressBar } from "./progress-bar.js";
import { cliTransport } from "./transport.js";

/** Exit status of a run cut by Ctrl-C (128 + SIGINT, as a shell reports it). */
const EXIT_INTERRUPTED = 130;

type Command<C extends Invocation["command"]> = Extract<Invocation, { command: C }>;

/** Aborted by the first SIGINT of a put, get or status. */
const interrupt = new AbortController();

/** Runs one invocation; resolves to the exit status (a rejection is status 1). */
async function main(inv: Invocation): Promise<number> {
  switch (inv.command) {
    case "help":
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case "version":
      process.stdout.write(`${packageVersion()}\n`);
      return 0;
    case "usage-error":
      process.stderr.write(`nearwire-transfer: ${inv.message}\n${USAGE}\n`);
      return 2;
    case "serve":
      return serve(inv);
  }
  // A second Ctrl-C is Node's default: the process ends at once.
  process.once("SIGINT", () => interrupt.abort());
  const transport = cliTransport(inv.address);
  const codec = await loadTransferCodec(inv.codec);
  try {
    if (inv.command === "status") {
      const st = await withClient(transport, codec, inv, (client) =>
        client.status(inv.name, { signal: interrupt.signal }),
      );
      process.stdout.write(`${JSON.stringify(st)}\n`);
      return 0;
    }
    return await transfer(transport, codec, inv);
  } catch (err) {
    if (!interrupt.signal.aborted) throw err;
    const resume = inv.command === "status" ? "" : "; run the same command again to resume";
    process.stderr.write(`\nnearwire-transfer: interrupted${resume}\n`);
    return EXIT_INTERRUPTED;
  }
}

/** Serves `--root` until SIGINT or SIGTERM, then closes (a second of grace for calls). */
async function serve(inv: Command<"serve">): Promise<number> {
  const codec = await loadTransferCodec(inv.codec);
  const handlers = createTransferHandlers({
    root: inv.root,
    ...(inv.syncEveryBytes === undefined ? {} : { syncEveryBytes: inv.syncEveryBytes }),
    ...(inv.durable === undefined ? {} : { durable: inv.durable }),
    ...(inv.pageCache === true ? { directWrites: false } : {}),
  });
  const server = cliTransport(inv.address).createServer();
  server.addService(TransferService, handlers, { codec });
  await server.listen();
  process.stdout.write(`serving ${server.address} root ${inv.root} codec ${codec.name}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  await server.close({ graceMs: 1000 });
  return 0;
}

/** put or get with a progress bar on stderr and the result line on stdout. */
async function transfer(
  transport: Transport,
  codec: Codec,
  inv: Command<"put" | "get">,
): Promise<number> {
  const { command, from, to } = inv;
  const bar = createProgressBar({
    stream: process.stderr,
    label: `${command} ${command === "put" ? to : from}`,
  });
  // A local file that is not there fails before any connection is tried (NOT_FOUND, not the
  // UNAVAILABLE of a server that is not running).
  if (command === "put") await fileSize(from);
  const options = {
    signal: interrupt.signal,
    onProgress: (p: { transferredBytes: number; totalBytes: number }) =>
      bar.update(p.transferredBytes, p.totalBytes),
    ...(inv.pageCache === true ? { directWrites: false } : {}),
  };
  const r: TransferResult = await withClient(transport, codec, inv, (client) =>
    command === "put" ? client.upload(from, to, options) : client.download(from, to, options),
  );
  bar.finish();
  process.stdout.write(
    `${command} ${r.name} ${r.sizeBytes} B sha256 ${r.sha256} resumed-from ${r.resumedFromBytes} B\n`,
  );
  return 0;
}

/**
 * Connects and runs `op`. After UNAVAILABLE (a lost connection, no server) it waits
 * {@link retryDelayMs} and reconnects, up to `--retries` times; a transfer resumes.
 */
async function withClient<T>(
  transport: Transport,
  codec: Codec,
  inv: { retries: number; chunkBytes?: number },
  op: (client: TransferClient) => Promise<T>,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      const connection = await transport.connect();
      try {
        const chunkBytes = inv.chunkBytes === undefined ? {} : { chunkBytes: inv.chunkBytes };
        return await op(createTransferClient({ connection, codec, ...chunkBytes }));
      } finally {
        await connection.close();
      }
    } catch (err) {
      if (!(err instanceof NearwireError) || err.code !== Code.Unavailable || retry >= inv.retries)
        throw err;
      const waitMs = retryDelayMs(retry);
      process.stderr.write(
        `\nconnection lost (${err.message}); retry ${retry + 1} of ${inv.retries} in ${waitMs} ms\n`,
      );
      await sleep(waitMs, undefined, { signal: interrupt.signal });
    }
  }
}

function packageVersion(): string {
  const pkg = new URL("../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version;
}

main(parseCli(process.argv.slice(2), process.env)).then(
  (status) => {
    process.exitCode = status;
  },
  (err: unknown) => {
    const e = NearwireError.from(err);
    process.stderr.write(`\nnearwire-transfer: ${codeName(e.code)}: ${e.message}\n`);
    process.exitCode = 1;
  },
);
