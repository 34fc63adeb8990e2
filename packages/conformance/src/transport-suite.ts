/** transportSuite(): the one suite every transport runs, one file per behaviour under suites/. */
import { after, before, describe, it } from "node:test";
import { readKnownFailures } from "./known-failures.js";
import { type CodecRef, loadCodec, loadFactory } from "./module-refs.js";
import { SuiteHarness, type TransportSupports } from "./suite-harness.js";
import { backpressureSuite } from "./suites/backpressure.js";
import { callKindsSuite } from "./suites/call-kinds.js";
import { cancellationSuite } from "./suites/cancellation.js";
import { deadlinesSuite } from "./suites/deadlines.js";
import { interceptorsSuite } from "./suites/interceptors.js";
import { lifecycleSuite } from "./suites/lifecycle.js";
import { limitsSuite } from "./suites/limits.js";
import { orderingSuite } from "./suites/ordering.js";
import { peerDeathSuite } from "./suites/peer-death.js";
import { reconnectSuite } from "./suites/reconnect.js";
import { serverSetupSuite } from "./suites/server-setup.js";
import { swapTransparencySuite } from "./suites/swap-transparency.js";
import { unknownMethodSuite } from "./suites/unknown-method.js";
import { createTmpResources, type TmpResources } from "./tmp-resources.js";

/** Options of {@link transportSuite}. */
export interface TransportSuiteOptions {
  /** Shown as the top-level test group: `uds (path)`. */
  name: string;
  /**
   * URL of a module exporting `createTransport(address, options?)` (see
   * `TransportFactoryModule`); imported here and in the server child process.
   */
  factoryModule: string;
  /** The address of each server the suite starts: `(tmp) => tmp.socketPath()`. */
  address: (tmp: TmpResources) => string | Promise<string>;
  /** What the transport supports; false flags switch tests off. Default: everything. */
  supports?: TransportSupports;
  /** The codec to run every call with; default core's `jsonCodec`. */
  codec?: CodecRef;
  /** The message-size limit the limits suite passes to both sides, in bytes. Default 1 MiB. */
  maxMessageBytes?: number;
  /** Messages per ordering test (client stream, server stream, bidi). Default 100,000. */
  orderingMessages?: number;
  /** A known-failures file (`<suite>/<test name> # <reason>` per line). */
  knownFailures?: string | URL;
  /**
   * This run repeats another run of the same transport on another address kind: the suites
   * that test the engine rather than the socket (ordering: 3 × `orderingMessages` messages,
   * deadlines, cancellation, limits, backpressure, server set-up, interceptors, reconnect) show
   * as skipped here; the suites where the address matters (lifecycle, call kinds, peer death,
   * unknown method, swap transparency with its nothing-listens case) run. Default false.
   */
  addressVariant?: boolean;
  /**
   * Where each server runs: `process` (default: a child process) or `thread` (a worker thread
   * of the test process, for transports between threads such as `@nearwire/worker`; then
   * `address` should give `tmp.threadAddress()`, and the factory module finds the server
   * thread of an address with `threadServer(address)`).
   */
  serverIn?: "process" | "thread";
  /** Runs only the suites named here (`"ordering"`, `"peer death"`, …); default all. */
  only?: SuiteName[];
}

/** Suites an {@link TransportSuiteOptions.addressVariant} run skips. */
const BULK_SUITES: ReadonlySet<string> = new Set([
  "ordering",
  "deadlines",
  "cancellation",
  "limits",
  "backpressure",
  "server setup",
  "interceptors",
  "reconnect",
]);

/** The suites, one behaviour each, in the order they run. */
const SUITES = {
  lifecycle: lifecycleSuite,
  "call kinds": callKindsSuite,
  ordering: orderingSuite,
  deadlines: deadlinesSuite,
  cancellation: cancellationSuite,
  limits: limitsSuite,
  backpressure: backpressureSuite,
  "peer death": peerDeathSuite,
  reconnect: reconnectSuite,
  "unknown method": unknownMethodSuite,
  "server setup": serverSetupSuite,
  interceptors: interceptorsSuite,
  "swap transparency": swapTransparencySuite,
} as const;

/** Name of one suite file's behaviour, as shown in the test output. */
export type SuiteName = keyof typeof SUITES;

/**
 * Registers the conformance suite for one transport with `node:test`. Call it at the top level
 * of a test file. Every server runs in a child process (`server-main`), the test process is
 * the client; teardown fails on leaked socket files, child processes or server handles.
 *
 * ```ts
 * transportSuite({
 *   name: "uds (path)",
 *   factoryModule: new URL("./fixtures/uds-factory.ts", import.meta.url).href,
 *   address: (tmp) => tmp.socketPath(),
 * });
 * ```
 */
export function transportSuite(options: TransportSuiteOptions): void {
  const harness = new SuiteHarness({
    name: options.name,
    factoryModule: options.factoryModule,
    address: options.address,
    supports: { messageLimits: true, clientProcesses: true, ...options.supports },
    serverIn: options.serverIn ?? "process",
    codecRef: options.codec,
    maxMessageBytes: options.maxMessageBytes ?? 1024 * 1024,
    orderingMessages: options.orderingMessages ?? 100_000,
    knownFailures:
      options.knownFailures === undefined ? new Map() : readKnownFailures(options.knownFailures),
  });
  describe(`conformance: ${options.name}`, () => {
    before(async () => {
      const tmp = createTmpResources();
      harness.init(tmp, await loadCodec(options.codec), await loadFactory(options.factoryModule));
    });
    after(async () => {
      await harness.closeConnections();
      const leaks = await harness.tmp.cleanup();
      const stale = harness.staleKnownFailures().map((id) => `known failure "${id}" names no test`);
      const problems = [...leaks, ...stale];
      if (problems.length > 0) throw new Error(`teardown: ${problems.join("; ")}`);
    });
    for (const [name, register] of Object.entries(SUITES)) {
      if (options.only !== undefined && !options.only.includes(name as SuiteName)) continue;
      if (options.addressVariant === true && BULK_SUITES.has(name)) {
        describe(name, () => {
          it(`the ${name} suite`, { skip: "runs once per transport (addressVariant)" }, () => {});
        });
      } else register(harness);
    }
  });
}
