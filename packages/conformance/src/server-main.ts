/**
 * The conformance server, run as a child process by the suite:
 *
 * ```
 * node [--import tsx] server-main.(ts|js) <config JSON>
 * ```
 *
 * or as a worker thread (`server-thread`, for transports between threads: lines and the
 * SIGTERM stand-in then go over `parentPort`).
 *
 * config: {@link ServerMainConfig}. Serves the conformance service on `address`, prints
 * `READY <address>` on stdout, and on the first SIGTERM (later ones are ignored) prints `CLOSING`, closes gracefully with
 * `graceMs`, prints `CLOSED` and lets the process exit on its own. If handles are still open
 * 3 s after `CLOSED`, it prints `LEAKED <handle types>` and exits with code 3.
 */
import { isMainThread, type MessagePort, parentPort, workerData } from "node:worker_threads";
import { createConformanceHandlers } from "./conformance-handlers.js";
import { interceptedService, serverInterceptors } from "./conformance-interceptors.js";
import { conformanceService } from "./conformance-service.js";
import {
  type CodecRef,
  loadCodec,
  loadFactory,
  type TransportFactoryOptions,
} from "./module-refs.js";
import type { ThreadSignal } from "./thread-child.js";

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

/** Where this server runs: a child process (stdout lines, signals) or a worker thread. */
interface ServerIo {
  config: ServerMainConfig;
  line(text: string): void;
  onSigterm(handler: () => void): void;
  /** After a graceful close: stop listening for the parent (a thread then ends on its own). */
  done(): void;
}

function processIo(): ServerIo {
  return {
    config: JSON.parse(process.argv[2] ?? "") as ServerMainConfig,
    line: (text) => process.stdout.write(`${text}\n`),
    onSigterm: (handler) => process.on("SIGTERM", handler),
    done: () => {},
  };
}

/** A server thread (thread-child.ts): lines and the SIGTERM stand-in go over `parentPort`. */
function threadIo(): ServerIo {
  const port = parentPort as MessagePort;
  let onMessage: ((m: unknown) => void) | undefined;
  return {
    config: (workerData as { config: ServerMainConfig }).config,
    line: (text) => port.postMessage({ line: text }),
    onSigterm(handler) {
      onMessage = (m) => {
        if ((m as ThreadSignal | null)?.conformanceSignal === "SIGTERM") handler();
      };
      port.on("message", onMessage);
    },
    done() {
      if (onMessage !== undefined) port.off("message", onMessage);
    },
  };
}

async function main(): Promise<void> {
  const io = isMainThread ? processIo() : threadIo();
  const config = io.config;
  const factory = await loadFactory(config.factoryModule);
  const codec = await loadCodec(config.codec);
  const transport = await factory.createTransport(config.address, config.factoryOptions);
  const server = transport.createServer();
  const handlers = createConformanceHandlers();
  server.addService(conformanceService, handlers, { codec });
  server.addService(interceptedService, handlers, { codec, interceptors: serverInterceptors() });
  await server.listen();
  let closing = false;
  io.onSigterm(() => {
    if (closing) return;
    closing = true;
    io.line("CLOSING");
    server.close({ graceMs: config.graceMs }).then(
      () => {
        io.line("CLOSED");
        io.done();
        setTimeout(() => {
          io.line(`LEAKED ${process.getActiveResourcesInfo().join(",")}`);
          process.exit(3);
        }, LEAK_CHECK_MS).unref();
      },
      (err: unknown) => {
        process.stderr.write(`close failed: ${String(err)}\n`);
        process.exit(2);
      },
    );
  });
  io.line(`READY ${server.address}`);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `server-main failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
