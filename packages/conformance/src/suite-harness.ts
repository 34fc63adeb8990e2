/**
 * The harness of one transportSuite run: servers in child processes, clients, flags, known
 * failures.
 */
import type { TestContext } from "node:test";
import { it } from "node:test";
import type { Client, ClientConnection, Codec } from "@nearwire/core";
import { messageOf } from "@nearwire/core/transport-kit";
import { type SuiteChild, spawnChild } from "./child-process.js";
import { type ConformanceService, conformanceService } from "./conformance-service.js";
import type { CodecRef, TransportFactoryModule, TransportFactoryOptions } from "./module-refs.js";
import type { ServerMainConfig } from "./server-main.js";
import { spawnThreadChild } from "./thread-child.js";
import type { TmpResources } from "./tmp-resources.js";

/**
 * What a transport can do, as the suite asks it. A false flag switches the tests that need
 * it off (they show as skipped with the flag's name); never skip tests by hand.
 */
export interface TransportSupports {
  /** Enforces `maxMessageBytes` in both directions (the limits suite). Default true. */
  messageLimits?: boolean;
  /**
   * A client in another process can reach the server (the peer-death suite's client
   * children). False for transports between threads of one process. Default true.
   */
  clientProcesses?: boolean;
}

/** Options of {@link transportSuite}'s harness, after defaults. */
export interface ResolvedSuiteOptions {
  name: string;
  factoryModule: string;
  address: (tmp: TmpResources) => string | Promise<string>;
  supports: Required<TransportSupports>;
  codecRef: CodecRef | undefined;
  maxMessageBytes: number;
  orderingMessages: number;
  knownFailures: Map<string, string>;
  /**
   * Where servers run: `process` (a child process, default) or `thread` (a worker thread of
   * the test process, for transports between threads; addresses come from `threadAddress`).
   */
  serverIn: "process" | "thread";
}

/** A conformance server in a child process (or a worker thread: `serverIn`). */
export interface ServerHandle {
  readonly address: string;
  readonly child: SuiteChild;
  /** SIGTERM (graceful close), then waits for exit; throws unless it exits 0 with no leak. */
  stop(): Promise<void>;
  /** SIGKILL, then waits for exit. */
  kill(): Promise<void>;
}

/** A client connection with a typed conformance client. */
export interface Connected {
  readonly conn: ClientConnection;
  readonly client: Client<ConformanceService>;
}

/** Options of one test. */
export interface CaseOptions {
  /** Support flags the test needs; when one is false the test is skipped, naming it. */
  requires?: (keyof TransportSupports)[];
  /** Hang guard for the whole test, in ms; default 20000. */
  timeoutMs?: number;
}

const SERVER_READY_MS = 20_000;
const SERVER_EXIT_MS = 15_000;

/** Shared state and helpers of one transportSuite run, handed to every suite file. */
export class SuiteHarness {
  private resources: TmpResources | undefined;
  private boundCodec: Codec | undefined;
  private factory: TransportFactoryModule | undefined;
  private readonly connections = new Set<ClientConnection>();
  private readonly seenIds = new Set<string>();
  readonly serverMain: string;
  readonly serverThread: string;
  readonly clientMain: string;

  constructor(readonly options: ResolvedSuiteOptions) {
    const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
    this.serverMain = new URL(`./server-main${ext}`, import.meta.url).pathname;
    this.serverThread = new URL(`./server-thread${ext}`, import.meta.url).pathname;
    this.clientMain = new URL(`./client-main${ext}`, import.meta.url).pathname;
  }

  /** Called by the top-level `before` hook. */
  init(tmp: TmpResources, codec: Codec, factory: TransportFactoryModule): void {
    this.resources = tmp;
    this.boundCodec = codec;
    this.factory = factory;
  }

  get tmp(): TmpResources {
    if (this.resources === undefined) throw new Error("suite not initialised");
    return this.resources;
  }

  get codec(): Codec {
    if (this.boundCodec === undefined) throw new Error("suite not initialised");
    return this.boundCodec;
  }

  /** A fresh address from the suite's `address` function. */
  async newAddress(): Promise<string> {
    return await this.options.address(this.tmp);
  }

  /** Starts a server child on `address` (default: a fresh one) and waits for READY. */
  async startServer(
    opts: { address?: string; factoryOptions?: TransportFactoryOptions; graceMs?: number } = {},
  ): Promise<ServerHandle> {
    const address = opts.address ?? (await this.newAddress());
    const config: ServerMainConfig = {
      factoryModule: this.options.factoryModule,
      address,
      factoryOptions: opts.factoryOptions ?? {},
      graceMs: opts.graceMs ?? 5000,
    };
    if (this.options.codecRef !== undefined) config.codec = this.options.codecRef;
    const child =
      this.options.serverIn === "thread"
        ? spawnThreadChild(this.serverThread, address, config, this.tmp)
        : spawnChild(this.serverMain, [JSON.stringify(config)], this.tmp, [
            config.factoryModule,
            config.codec?.module,
          ]);
    await child.waitForLine("READY", SERVER_READY_MS);
    return {
      address,
      child,
      async stop() {
        child.signal("SIGTERM");
        const exit = await Promise.race([
          child.exited,
          new Promise<undefined>((r) => setTimeout(() => r(undefined), SERVER_EXIT_MS).unref()),
        ]);
        if (exit === undefined) {
          child.signal("SIGKILL");
          await child.exited;
          throw new Error(
            `server ${child.pid} did not exit within ${SERVER_EXIT_MS} ms of SIGTERM; stderr: ${child.stderr()}`,
          );
        }
        const leaked = child.lines().find((l) => l.startsWith("LEAKED"));
        if (exit.code !== 0 || exit.signal !== null) {
          throw new Error(
            `server ${child.pid} exited with code ${exit.code}, signal ${exit.signal} after SIGTERM${leaked === undefined ? "" : ` (${leaked}: handles kept open after close)`}; stderr: ${child.stderr()}`,
          );
        }
      },
      async kill() {
        child.signal("SIGKILL");
        await child.exited;
      },
    };
  }

  /** Makes a transport for `address` in this process (the client side). */
  async transport(address: string, factoryOptions?: TransportFactoryOptions) {
    if (this.factory === undefined) throw new Error("suite not initialised");
    return await this.factory.createTransport(address, factoryOptions);
  }

  /** Connects to `address` and makes a conformance client; closed at teardown if still open. */
  async connect(address: string, factoryOptions?: TransportFactoryOptions): Promise<Connected> {
    const transport = await this.transport(address, factoryOptions);
    const conn = await transport.connect();
    this.connections.add(conn);
    return { conn, client: conn.client(conformanceService, { codec: this.codec }) };
  }

  /** Closes a connection made by {@link connect}. */
  async disconnect(c: Connected | undefined): Promise<void> {
    if (c === undefined) return;
    this.connections.delete(c.conn);
    await c.conn.close();
  }

  /** Closes every connection still open (teardown). */
  async closeConnections(): Promise<void> {
    const all = [...this.connections];
    this.connections.clear();
    await Promise.allSettled(all.map((c) => c.close()));
  }

  /**
   * Registers a test of suite `suite`, applying support flags and known failures: a listed
   * test must fail (its failure is reported as a diagnostic), and passing fails the test.
   */
  test(
    suite: string,
    name: string,
    fn: (t: TestContext) => Promise<void>,
    opts: CaseOptions = {},
  ): void {
    const id = `${suite}/${name}`;
    this.seenIds.add(id);
    const missing = (opts.requires ?? []).filter((f) => !this.options.supports[f]);
    const known = this.options.knownFailures.get(id);
    const skip = missing.length > 0 ? `transport does not support ${missing.join(", ")}` : false;
    it(name, { timeout: opts.timeoutMs ?? 20_000, skip }, async (t) => {
      if (known === undefined) return await fn(t);
      try {
        await fn(t);
      } catch (err) {
        t.diagnostic(`known failure (${known}): ${messageOf(err)}`);
        return;
      }
      throw new Error(
        `"${id}" is listed as a known failure (${known}) but passed: remove it from the list`,
      );
    });
  }

  /** Known-failure entries that name no registered test (checked at suite end). */
  staleKnownFailures(): string[] {
    const ran = new Set([...this.seenIds].map((id) => id.slice(0, id.indexOf("/"))));
    return [...this.options.knownFailures.keys()].filter(
      (id) => !this.seenIds.has(id) && ran.has(id.slice(0, id.indexOf("/"))),
    );
  }
}
