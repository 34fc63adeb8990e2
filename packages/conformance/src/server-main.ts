/**
 * The conformance server, run as a child process by the suite:
 *
 * ```
 * node --import tsx server-main.(ts|js) <config JSON>
 * ```
 *
 * config: {@link ServerMainConfig}. Serves the conformance service on `address`, prints
 * `READY <address>` on stdout, and on the first SIGTERM (later ones are ignored) prints `CLOSING`, closes gracefully with
 * `graceMs`, prints `CLOSED` and lets the process exit on its own. If handles are still open
 * 3 s after `CLOSED`, it prints `LEAKED <handle types>` and exits with code 3.
 */
import { createConformanceHandlers } from "./conformance-handlers.js";
import { conformanceService } from "./conformance-service.js";
import {
  type CodecRef,
  loadCodec,
  loadFactory,
  type TransportFactoryOptions,
} from "./module-refs.js";

/** The JSON argument of the server child. */
export interface ServerMainConfig {
  factoryModule: string;
  address: string;
  factoryOptions: TransportFactoryOptions;
  codec?: CodecRef;
  /** Passed to `server.close({ graceMs })` on SIGTERM. */
  graceMs: number;
}

const LEAK_CHECK_MS = 3000;

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "") as ServerMainConfig;
  const factory = await loadFactory(config.factoryModule);
  const codec = await loadCodec(config.codec);
  const transport = await factory.createTransport(config.address, config.factoryOptions);
  const server = transport.createServer();
  server.addService(conformanceService, createConformanceHandlers(), { codec });
  await server.listen();
  let closing = false;
  process.on("SIGTERM", () => {
    if (closing) return;
    closing = true;
    process.stdout.write("CLOSING\n");
    server.close({ graceMs: config.graceMs }).then(
      () => {
        process.stdout.write("CLOSED\n");
        setTimeout(() => {
          process.stdout.write(`LEAKED ${process.getActiveResourcesInfo().join(",")}
`);
          process.exit(3);
        }, LEAK_CHECK_MS).unref();
      },
      (err: unknown) => {
        process.stderr.write(`close failed: ${String(err)}\n`);
        process.exit(2);
      },
    );
  });
  process.stdout.write(`READY ${server.address}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `server-main failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
