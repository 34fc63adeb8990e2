import type { ChannelProvider, Codec, MessageType, Transport } from "@nearwire/core";
import { createMemoryTransport, NearwireError } from "@nearwire/core";
import type { CaseSpec, MessageName } from "./case-spec.js";

/**
 * The transports and messages the bench measures, imported by name with their types: a
 * renamed factory fails the typecheck, and package.json lists every package. The imports are
 * dynamic (typed `import()`), so that a worker process loads only the package its case needs
 * (grpc-js alone adds ~0.1 s to a process start); `@nearwire/shm-ring` is the one that may fail
 * to load, when its native addon is not built, and is then reported as "not built" (never
 * replaced by anything else).
 */

/** Whether a package could be used, and why not. */
export interface Availability {
  /** Package or feature name (`@nearwire/shm-ring`). */
  name: string;
  status: "ok" | "absent" | "not built" | "error";
  /** Why it is not usable (first line of the error). */
  detail?: string;
}

/** The shape of `@nearwire/bench-messages` the bench relies on. */
export interface BenchMessages {
  messageTypes: Record<MessageName, MessageType<unknown>>;
  codecs: Codec[];
  samples: Record<Exclude<MessageName, "chunk">, unknown>;
  /** A Chunk with `dataBytes` of data. */
  makeChunk(dataBytes: number, seq?: number): unknown;
}

/**
 * Settings a bench role gives its transport where the transport has them (others ignore them):
 * a transfer's byte window of one stream, `creditWindowBytes` of `@nearwire/uds` and shm-ring,
 * `streamWindowBytes` (HTTP/2) of `@nearwire/grpc-uds`.
 */
export interface TransportTuning {
  creditWindowBytes?: number;
}

/** Makes a Transport bound to `address`. */
export type TransportFactory = (address: string, tuning?: TransportTuning) => Transport;
/** Makes a ChannelProvider bound to `address`. */
export type ChannelFactory = (address: string) => ChannelProvider;

/** What a transport id needs for its server address. */
export type AddressKind = "path" | "tcp";

/** A nearwire transport the bench can run (RPC or channel layer). */
export interface TransportPlugin {
  id: string;
  layer: "rpc" | "channel";
  addressKind: AddressKind;
  /** The baseline (or transport) this one's rows are compared to. */
  baseline: string;
  transport?: TransportFactory;
  channel?: ChannelFactory;
  /**
   * Client and server run in one process (the `memory` transport: the RPC engine with no
   * kernel under it). Its server role idles; the client process serves too, so the client's
   * CPU column holds both sides.
   */
  inProcess?: boolean;
  /**
   * The server runs in a worker thread of the client process (`@nearwire/worker`): the
   * server process idles, and the client's CPU column holds both threads.
   */
  serverThread?: boolean;
}

/**
 * The other thread of a {@link TransportPlugin.serverThread} case, as this thread sees it: the
 * `Worker` in the client process, `parentPort` in the server thread. Set before connect/listen.
 */
let threadEndpoint:
  | import("node:worker_threads").Worker
  | import("node:worker_threads").MessagePort
  | undefined;

/** Sets the endpoint worker transports of this thread use (see {@link TransportPlugin.serverThread}). */
export function setThreadEndpoint(
  endpoint: import("node:worker_threads").Worker | import("node:worker_threads").MessagePort,
): void {
  threadEndpoint = endpoint;
}

function currentThreadEndpoint() {
  if (threadEndpoint === undefined) throw new Error("no worker thread started for this case");
  return threadEndpoint;
}

/** True for cases whose server is a worker thread of the client process (worker rows, postMessage). */
export function serverInThread(transport: string): boolean {
  return transport.startsWith("worker-") || transport === "bare-postmessage";
}

const memoryTransports = new Map<string, Transport>();

/** One memory transport per address within a process, so the server and client meet. */
function memoryTransportAt(address: string): Transport {
  let t = memoryTransports.get(address);
  if (t === undefined) {
    t = createMemoryTransport();
    memoryTransports.set(address, t);
  }
  return t;
}

/** Everything found at run time. */
export interface Plugins {
  messages: BenchMessages;
  transports: TransportPlugin[];
  availability: Availability[];
}

/** The packages a worker may load, by import name. */
export type PackageName =
  | "@nearwire/bench-messages"
  | "@nearwire/uds"
  | "@nearwire/grpc-uds"
  | "@nearwire/shm-ring"
  | "@nearwire/worker";

/** The package a transport id comes from (undefined for the hand-written baselines). */
export function packageOf(transport: string): PackageName | undefined {
  if (transport.startsWith("bare-") || transport === "memory") return undefined;
  if (transport.startsWith("shm-ring")) return "@nearwire/shm-ring";
  if (transport.startsWith("worker-")) return "@nearwire/worker";
  if (transport.startsWith("grpc-")) return "@nearwire/grpc-uds";
  return "@nearwire/uds";
}

/**
 * Loads the packages (all, or only `only`: a worker loads just what its case needs) and lists
 * the transports; `availability` says why shm-ring is missing when its addon did not load.
 */
export async function loadPlugins(only?: readonly PackageName[]): Promise<Plugins> {
  const availability: Availability[] = [];
  const want = (name: PackageName) => only === undefined || only.includes(name);
  const transports: TransportPlugin[] = [
    {
      id: "memory",
      layer: "rpc",
      addressKind: "path",
      baseline: "uds",
      transport: memoryTransportAt,
      inProcess: true,
    },
  ];
  if (want("@nearwire/uds")) {
    const { createUdsChannelProvider, createUdsTransport } = await import("@nearwire/uds");
    const uds: TransportFactory = (address, tuning) => createUdsTransport({ address, ...tuning });
    transports.push(
      { id: "uds", layer: "rpc", addressKind: "path", baseline: "bare-net-uds", transport: uds },
      { id: "tcp", layer: "rpc", addressKind: "tcp", baseline: "bare-net-tcp", transport: uds },
      {
        id: "uds-channel",
        layer: "channel",
        addressKind: "path",
        baseline: "bare-net-uds",
        channel: (address) => createUdsChannelProvider({ address }),
      },
    );
  }
  if (want("@nearwire/grpc-uds")) {
    const { createGrpcTransport } = await import("@nearwire/grpc-uds");
    // The byte window is HTTP/2's stream window here (the transfer's ten-at-once rows set it).
    const grpc: TransportFactory = (address, tuning) =>
      createGrpcTransport({
        address,
        ...(tuning?.creditWindowBytes === undefined
          ? {}
          : { streamWindowBytes: tuning.creditWindowBytes }),
      });
    transports.push(
      {
        id: "grpc-uds",
        layer: "rpc",
        addressKind: "path",
        baseline: "bare-grpc-js",
        transport: grpc,
      },
      // The same service over TCP loopback (the published figures compare gRPC over UDS and over TCP).
      {
        id: "grpc-tcp",
        layer: "rpc",
        addressKind: "tcp",
        baseline: "bare-grpc-js-tcp",
        transport: grpc,
      },
    );
  }
  if (want("@nearwire/shm-ring")) {
    let shm: typeof import("@nearwire/shm-ring") | undefined;
    try {
      shm = await import("@nearwire/shm-ring");
    } catch (err) {
      const notBuilt = err instanceof NearwireError && err.reason === "not-built";
      const detail = String((err as Error).message ?? err).split("\n")[0] ?? "";
      availability.push({
        name: "@nearwire/shm-ring",
        status: notBuilt ? "not built" : "error",
        detail,
      });
    }
    if (shm !== undefined) {
      const { createShmRingChannelProvider, createShmRingTransport } = shm;
      for (const wait of ["spin", "park", "adaptive"] as const) {
        transports.push(
          {
            id: `shm-ring-${wait}`,
            layer: "rpc",
            addressKind: "path",
            baseline: "uds",
            transport: (address, tuning) => createShmRingTransport({ address, wait, ...tuning }),
          },
          {
            id: `shm-ring-${wait}-channel`,
            layer: "channel",
            addressKind: "path",
            baseline: "uds-channel",
            channel: (address) => createShmRingChannelProvider({ address, wait }),
          },
        );
      }
    }
  }
  if (want("@nearwire/worker")) {
    const { createWorkerChannelProvider, createWorkerTransport } = await import("@nearwire/worker");
    for (const wait of ["spin", "park", "adaptive"] as const) {
      transports.push(
        {
          id: `worker-${wait}`,
          layer: "rpc",
          addressKind: "path",
          baseline: "bare-postmessage",
          transport: () => createWorkerTransport({ port: currentThreadEndpoint(), wait }),
          serverThread: true,
        },
        {
          id: `worker-${wait}-channel`,
          layer: "channel",
          addressKind: "path",
          baseline: "bare-postmessage",
          channel: () => createWorkerChannelProvider({ port: currentThreadEndpoint(), wait }),
          serverThread: true,
        },
      );
    }
  }
  const messages = want("@nearwire/bench-messages") ? await loadMessages() : NO_MESSAGES;
  return { messages, transports, availability };
}

async function loadMessages(): Promise<BenchMessages> {
  const m = await import("@nearwire/bench-messages");
  const messageTypes: Record<MessageName, MessageType<unknown>> = {
    tick: m.TickType,
    request: m.RequestType,
    metric: m.MetricType,
    chunk: m.ChunkType,
  };
  const codecs: Codec[] = Object.values(m.benchCodecs);
  const { tick, request, metric } = m.sampleMessages;
  return { messageTypes, codecs, samples: { tick, request, metric }, makeChunk: m.makeChunk };
}

/**
 * Loads only the package (and, for an RPC row, the messages) `spec` needs, as every bench worker
 * does: a shorter process start-up, and nothing else loaded in the process measured (the uds
 * channel's stream ran 11–28 % slower here with the other packages loaded beside it, most of
 * that from `@nearwire/grpc-uds`).
 */
export function loadPluginsFor(spec: CaseSpec): Promise<Plugins> {
  const pkg = packageOf(spec.transport);
  const only: PackageName[] = pkg === undefined ? [] : [pkg];
  if (spec.layer === "rpc") only.push("@nearwire/bench-messages");
  return loadPlugins(only);
}

/** The transport `id` of `plugins`; throws naming why packages did not load when it is missing. */
export function pluginById(plugins: Plugins, id: string): TransportPlugin {
  const p = plugins.transports.find((t) => t.id === id);
  if (p === undefined) {
    const why = plugins.availability
      .map((a) => `${a.name}: ${a.status} ${a.detail ?? ""}`)
      .join("; ");
    throw new Error(`transport ${id} not available${why ? ` (${why})` : ""}`);
  }
  return p;
}

/** What a process that measures no RPC case gets (channel rows, baselines): no messages. */
const NO_MESSAGES: BenchMessages = {
  messageTypes: {} as Record<MessageName, MessageType<unknown>>,
  codecs: [],
  samples: {} as BenchMessages["samples"],
  makeChunk: () => {
    throw new Error("no benchmark messages loaded in this process");
  },
};
