import type { ChannelProvider, Codec, MessageType, Transport } from "@nearwire/core";
import { createMemoryTransport, jsonCodec } from "@nearwire/core";
import type { MessageName } from "./case-spec.js";

/**
 * Optional packages, loaded with a dynamic import so the bench builds and runs at every stage
 * of the project: a package that is missing or exports nothing yet leaves its cases out, and a
 * native addon that fails to load is reported as "not built" (never silently replaced).
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
  /** True when this came from `@nearwire/bench-messages`; false for the json-only stand-in. */
  fromPackage: boolean;
}

/** Makes a Transport bound to `address`. */
export type TransportFactory = (address: string) => Transport;
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

type Module = Record<string, unknown>;

async function load(name: string, availability: Availability[]): Promise<Module | undefined> {
  try {
    const mod = (await import(name)) as Module;
    return mod;
  } catch (err) {
    const e = err as { code?: unknown; reason?: unknown; message?: string };
    const detail = String(e.message ?? err).split("\n")[0] ?? "";
    const status =
      e.reason === "not-built" || /not built/i.test(detail)
        ? "not built"
        : e.code === "ERR_MODULE_NOT_FOUND" && detail.includes(name)
          ? "absent"
          : "error";
    const short =
      status === "absent" && /\/dist\//.test(detail)
        ? "no dist/ (package not built or not written yet)"
        : detail;
    availability.push({ name, status, detail: short });
    return undefined;
  }
}

function fn<T>(mod: Module | undefined, name: string): T | undefined {
  const f = mod?.[name];
  return typeof f === "function" ? (f as T) : undefined;
}

/** The optional packages, by import name. */
export type PackageName =
  | "@nearwire/bench-messages"
  | "@nearwire/uds"
  | "@nearwire/grpc-uds"
  | "@nearwire/shm-ring";

/** The package a transport id comes from (undefined for the hand-written baselines). */
export function packageOf(transport: string): PackageName | undefined {
  if (transport.startsWith("bare-") || transport === "memory") return undefined;
  if (transport.startsWith("shm-ring")) return "@nearwire/shm-ring";
  if (transport.startsWith("grpc-")) return "@nearwire/grpc-uds";
  return "@nearwire/uds";
}

/**
 * Loads the optional packages (all, or only `only`: a worker loads just what its case needs, so
 * process start-up stays short) and lists what is usable.
 */
export async function loadPlugins(only?: readonly PackageName[]): Promise<Plugins> {
  const availability: Availability[] = [];
  const want = (name: PackageName) => only === undefined || only.includes(name);
  const messages = want("@nearwire/bench-messages")
    ? await loadMessages(availability)
    : standInMessages();
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

  const uds = want("@nearwire/uds") ? await load("@nearwire/uds", availability) : undefined;
  const core = (await import("@nearwire/core")) as Module;
  const createUdsTransport = fn<(o: { address: string }) => Transport>(uds, "createUdsTransport");
  const createUdsChannelProvider = fn<(o: { address: string }) => ChannelProvider>(
    uds,
    "createUdsChannelProvider",
  );
  const createRpcTransport = fn<(p: ChannelProvider) => Transport>(core, "createRpcTransport");
  const udsTransport: TransportFactory | undefined = createUdsTransport
    ? (address) => createUdsTransport({ address })
    : createUdsChannelProvider && createRpcTransport
      ? (address) => createRpcTransport(createUdsChannelProvider({ address }))
      : undefined;
  if (udsTransport) {
    transports.push({
      id: "uds",
      layer: "rpc",
      addressKind: "path",
      baseline: "bare-net-uds",
      transport: udsTransport,
    });
    transports.push({
      id: "tcp",
      layer: "rpc",
      addressKind: "tcp",
      baseline: "bare-net-tcp",
      transport: udsTransport,
    });
  } else if (uds)
    availability.push({
      name: "@nearwire/uds transport",
      status: "absent",
      detail: "no createUdsTransport export yet",
    });
  if (createUdsChannelProvider) {
    transports.push({
      id: "uds-channel",
      layer: "channel",
      addressKind: "path",
      baseline: "bare-net-uds",
      channel: (address) => createUdsChannelProvider({ address }),
    });
  } else if (uds)
    availability.push({
      name: "@nearwire/uds channel",
      status: "absent",
      detail: "no createUdsChannelProvider export yet",
    });

  const grpc = want("@nearwire/grpc-uds")
    ? await load("@nearwire/grpc-uds", availability)
    : undefined;
  const createGrpcTransport = fn<(o: { address: string }) => Transport>(
    grpc,
    "createGrpcTransport",
  );
  if (createGrpcTransport) {
    transports.push({
      id: "grpc-uds",
      layer: "rpc",
      addressKind: "path",
      baseline: "bare-grpc-js",
      transport: (address) => createGrpcTransport({ address }),
    });
    // The same service over TCP loopback (the seed compares gRPC over UDS and over TCP).
    transports.push({
      id: "grpc-tcp",
      layer: "rpc",
      addressKind: "tcp",
      baseline: "bare-grpc-js-tcp",
      transport: (address) => createGrpcTransport({ address }),
    });
  } else if (grpc)
    availability.push({
      name: "@nearwire/grpc-uds",
      status: "absent",
      detail: "no createGrpcTransport export yet",
    });

  const shm = want("@nearwire/shm-ring")
    ? await load("@nearwire/shm-ring", availability)
    : undefined;
  type ShmOptions = { address: string; wait: string };
  const createShmRingTransport = fn<(o: ShmOptions) => Transport>(shm, "createShmRingTransport");
  const createShmRingChannelProvider = fn<(o: ShmOptions) => ChannelProvider>(
    shm,
    "createShmRingChannelProvider",
  );
  const shmTransport: ((o: ShmOptions) => Transport) | undefined =
    createShmRingTransport ??
    (createShmRingChannelProvider && createRpcTransport
      ? (o) => createRpcTransport(createShmRingChannelProvider(o))
      : undefined);
  for (const wait of ["spin", "park", "adaptive"]) {
    if (shmTransport) {
      transports.push({
        id: `shm-ring-${wait}`,
        layer: "rpc",
        addressKind: "path",
        baseline: "uds",
        transport: (address) => shmTransport({ address, wait }),
      });
    }
    if (createShmRingChannelProvider) {
      transports.push({
        id: `shm-ring-${wait}-channel`,
        layer: "channel",
        addressKind: "path",
        baseline: "uds-channel",
        channel: (address) => createShmRingChannelProvider({ address, wait }),
      });
    }
  }
  if (shm && !shmTransport && !createShmRingChannelProvider) {
    availability.push({ name: "@nearwire/shm-ring", status: "absent", detail: "no exports yet" });
  }
  return { messages, transports, availability };
}

async function loadMessages(availability: Availability[]): Promise<BenchMessages> {
  const mod = await load("@nearwire/bench-messages", availability);
  const types = ["TickType", "RequestType", "MetricType", "ChunkType"].map((n) => mod?.[n]);
  const benchCodecs = mod?.benchCodecs as Record<string, Codec> | undefined;
  const samples = mod?.sampleMessages as Record<string, unknown> | undefined;
  const makeChunk = fn<BenchMessages["makeChunk"]>(mod, "makeChunk");
  if (mod && types.every((t) => t !== undefined) && benchCodecs && samples && makeChunk) {
    const [tick, request, metric, chunk] = types as MessageType<unknown>[];
    return {
      messageTypes: { tick, request, metric, chunk } as Record<MessageName, MessageType<unknown>>,
      codecs: Object.values(benchCodecs),
      samples: { tick: samples.tick, request: samples.request, metric: samples.metric },
      makeChunk,
      fromPackage: true,
    };
  }
  if (mod)
    availability.push({
      name: "@nearwire/bench-messages",
      status: "absent",
      detail: "exports not there yet",
    });
  return standInMessages();
}

/**
 * Used only while `@nearwire/bench-messages` does not exist: JSON with shapes close to the
 * benchmark set, so the transports can still be measured. Reports say when it was used.
 */
function standInMessages(): BenchMessages {
  const t = (name: string): MessageType<unknown> => ({ name: `nearwire.bench.${name}` });
  return {
    messageTypes: {
      tick: t("Tick"),
      request: t("Request"),
      metric: t("Metric"),
      chunk: t("Chunk"),
    },
    codecs: [jsonCodec],
    samples: {
      tick: {
        symbolId: 1234,
        seq: 1,
        timestampNs: 1_700_000_000_000,
        bid: 101.25,
        ask: 101.5,
        bidSize: 300,
        askSize: 200,
      },
      request: { requestId: "r-1", userId: 42, method: "GetQuote", tags: ["a", "b"] },
      metric: { timestampMs: 1_700_000_000_000, value: 0.5, tags: { host: "a", region: "eu" } },
    },
    makeChunk: (dataBytes, seq = 0) => ({ seq, last: false, data: new Uint8Array(dataBytes) }),
    fromPackage: false,
  };
}
