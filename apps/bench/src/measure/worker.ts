import { Worker } from "node:worker_threads";
import type { CaseSpec, MessageName } from "./case-spec.js";
import { measure, warmUp } from "./drive.js";
import type { BenchClient, BenchServer } from "./endpoint.js";
import {
  loadPlugins,
  loadPluginsFor,
  pluginById,
  serverInThread,
  setThreadEndpoint,
} from "./plugins.js";
import type { RunResult } from "./run-result.js";

/**
 * Child process entry: `worker.js <role> <json>`, talking to the orchestrator over the IPC
 * channel. Roles: `server` (serve one case until told to exit, reporting its CPU time around
 * the measured window), `client` (connect, warm up, wait for go, measure, report), `codec`
 * (tinybench codec benchmarks for one codec), `capabilities` (prints {@link WorkerCapabilities}
 * as JSON on stdout: what the orchestrator may ask of this build's workers).
 */

/** Messages the orchestrator sends. */
export type ToWorker =
  | { t: "go" }
  | { t: "cpu-start" }
  | { t: "cpu-stop" }
  | { t: "exit" }
  | { t: "address"; address: string };
/** Messages a worker sends. */
export type FromWorker =
  | { t: "ready"; address: string }
  | { t: "waiting" }
  | { t: "warmed" }
  | { t: "cpu-started" }
  | { t: "cpu"; userUs: number; systemUs: number }
  | { t: "result"; result: unknown }
  | { t: "error"; message: string };

/** Arguments of the server and client roles. */
export interface EndpointArgs {
  spec: CaseSpec;
  address: string;
  seed: number;
  durationMs: number;
  warmupMs: number;
  /**
   * Client: started beside its server, before the server's address is known. It loads its
   * modules, sends `waiting`, and connects to the address of the `address` message.
   */
  awaitAddress?: boolean;
}

/** What the workers of a build support, printed by the `capabilities` role. */
export interface WorkerCapabilities {
  /** The client role takes `awaitAddress` (older builds' workers do not know the role). */
  awaitAddress: boolean;
}

/** Arguments of the codec role. */
export interface CodecArgs {
  codec: string;
  messages: MessageName[];
  timeMs: number;
  seed: number;
}

function send(msg: FromWorker): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) resolve();
    else process.send(msg, undefined, {}, () => resolve());
  });
}

function nextMessage(): Promise<ToWorker> {
  return new Promise((resolve) => process.once("message", (m) => resolve(m as ToWorker)));
}

async function startServer(args: EndpointArgs): Promise<BenchServer> {
  const { spec, address } = args;
  if (spec.transport === "bare-net-uds" || spec.transport === "bare-net-tcp")
    return (await import("./bare-net.js")).startBareNetServer(address);
  if (spec.transport === "bare-grpc-js" || spec.transport === "bare-grpc-js-tcp")
    return (await import("./bare-grpc.js")).startBareGrpcServer(address);
  // Worker rows and the postMessage baseline: the server is a thread of the client process.
  if (serverInThread(spec.transport)) return { address, close: async () => {} };
  const plugins = await loadPluginsFor(spec);
  const plugin = pluginById(plugins, spec.transport);
  if (plugin.inProcess) return { address, close: async () => {} };
  const nw = await import("./nearwire-endpoints.js");
  return spec.layer === "channel"
    ? nw.startChannelServer(plugin, address)
    : nw.startRpcServer(plugin, spec, address, plugins.messages);
}

async function connect(args: EndpointArgs): Promise<BenchClient> {
  const { spec, address, seed } = args;
  if (serverInThread(spec.transport)) return connectThread(args);
  if (spec.transport === "bare-net-uds" || spec.transport === "bare-net-tcp")
    return (await import("./bare-net.js")).connectBareNet(spec, address, seed);
  if (spec.transport === "bare-grpc-js" || spec.transport === "bare-grpc-js-tcp")
    return (await import("./bare-grpc.js")).connectBareGrpc(spec, address, seed);
  const plugins = await loadPluginsFor(spec);
  const plugin = pluginById(plugins, spec.transport);
  const nw = await import("./nearwire-endpoints.js");
  if (spec.layer === "channel") return nw.connectChannel(plugin, spec, address, seed);
  if (!plugin.inProcess) return nw.connectRpc(plugin, spec, address, plugins.messages, seed);
  const server = await nw.startRpcServer(plugin, spec, address, plugins.messages);
  const client = await nw.connectRpc(plugin, spec, address, plugins.messages, seed);
  return {
    ...client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/**
 * A case whose server is a worker thread of this process (`thread-server.js`): starts it,
 * connects to it (over the worker transport, or posts messages for `bare-postmessage`), and
 * terminates it on close.
 */
async function connectThread(args: EndpointArgs): Promise<BenchClient> {
  const { spec, address, seed } = args;
  const thread = new Worker(new URL("./thread-server.js", import.meta.url), {
    workerData: { spec },
  });
  try {
    let client: BenchClient;
    if (spec.transport === "bare-postmessage") {
      await new Promise((resolve, reject) => {
        thread.once("online", resolve);
        thread.once("error", reject);
      });
      client = (await import("./bare-postmessage.js")).connectPostMessage(thread, spec, seed);
    } else {
      setThreadEndpoint(thread);
      const plugins = await loadPluginsFor(spec);
      const plugin = pluginById(plugins, spec.transport);
      const nw = await import("./nearwire-endpoints.js");
      client =
        spec.layer === "channel"
          ? await nw.connectChannel(plugin, spec, address, seed)
          : await nw.connectRpc(plugin, spec, address, plugins.messages, seed);
    }
    return {
      ...client,
      async close() {
        await client.close();
        await thread.terminate();
      },
    };
  } catch (err) {
    await thread.terminate();
    throw err;
  }
}

/**
 * Park mode's idle CPU: after the measured window, the connection stays open and idle for
 * `IDLE_MS` (once it has parked: `IDLE_SETTLE_MS` first); process.cpuUsage covers both threads.
 * Percent of one core.
 */
const IDLE_SETTLE_MS = 200;
const IDLE_MS = 1000;

async function idleCpuPercent(): Promise<number> {
  await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const d = process.cpuUsage(cpu0);
  const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
  return ((d.user + d.system) / wallUs) * 100;
}

async function serverRole(args: EndpointArgs): Promise<void> {
  const server = await startServer(args);
  void send({ t: "ready", address: server.address });
  let cpu0 = process.cpuUsage();
  process.on("message", (raw) => {
    const m = raw as ToWorker;
    if (m.t === "cpu-start") {
      cpu0 = process.cpuUsage();
      void send({ t: "cpu-started" });
    } else if (m.t === "cpu-stop") {
      const d = process.cpuUsage(cpu0);
      void send({ t: "cpu", userUs: d.user, systemUs: d.system });
    } else if (m.t === "exit") {
      void server.close().finally(() => process.exit(0));
    }
  });
  process.on("disconnect", () => process.exit(0));
}

/** Loads what a client of `spec` connects with, so that connecting later costs no import. */
async function prepare(spec: CaseSpec): Promise<void> {
  if (spec.transport === "bare-net-uds" || spec.transport === "bare-net-tcp")
    await import("./bare-net.js");
  else if (spec.transport === "bare-grpc-js" || spec.transport === "bare-grpc-js-tcp")
    await import("./bare-grpc.js");
  else if (spec.transport !== "bare-postmessage") {
    await loadPluginsFor(spec);
    await import("./nearwire-endpoints.js");
  }
}

/** The client's endpoint: `args`, or with the address the orchestrator sends (`awaitAddress`). */
async function clientEndpoint(args: EndpointArgs): Promise<EndpointArgs> {
  if (args.awaitAddress !== true) return args;
  await prepare(args.spec);
  const next = nextMessage();
  void send({ t: "waiting" });
  const m = await next;
  if (m.t !== "address") throw new Error(`client waiting for its address got "${m.t}"`);
  return { ...args, address: m.address };
}

async function clientRole(args: EndpointArgs): Promise<void> {
  const client = await connect(await clientEndpoint(args));
  const warm = await warmUp(client, args.spec, args.warmupMs);
  const go = nextMessage();
  void send({ t: "warmed" });
  await go;
  const result: Omit<RunResult, "server" | "serverCpuUsPerMsg"> = await measure(
    client,
    args.spec,
    args.durationMs,
    warm,
  );
  if (/^worker-park(-channel)?$/.test(args.spec.transport))
    result.idleCpuPercent = await idleCpuPercent();
  await send({ t: "result", result });
  await Promise.race([client.close(), new Promise((r) => setTimeout(r, 2000))]);
}

async function codecRole(args: CodecArgs): Promise<void> {
  const plugins = await loadPlugins(["@nearwire/bench-messages"]);
  const { benchCodec, codecSink } = await import("./codec-bench.js");
  const results = await benchCodec(
    plugins.messages,
    args.codec,
    args.messages,
    args.timeMs,
    args.seed,
  );
  await send({ t: "result", result: { results, sinkBytes: codecSink().bytes } });
}

async function main(): Promise<void> {
  const [role, json] = process.argv.slice(2);
  const args = JSON.parse(json ?? "{}") as unknown;
  if (role === "server") await serverRole(args as EndpointArgs);
  else if (role === "client") await clientRole(args as EndpointArgs);
  else if (role === "codec") await codecRole(args as CodecArgs);
  else if (role === "capabilities") {
    const capabilities: WorkerCapabilities = { awaitAddress: true };
    process.stdout.write(`${JSON.stringify(capabilities)}\n`);
  } else throw new Error(`unknown worker role ${role}`);
}

main().then(
  () => {
    if (process.argv[2] !== "server") process.exit(0);
  },
  async (err: unknown) => {
    await send({
      t: "error",
      message: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    });
    process.exit(1);
  },
);
