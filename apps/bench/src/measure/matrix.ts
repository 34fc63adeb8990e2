import type { BenchOptions } from "../cli/args.js";
import {
  type CaseMode,
  type CaseSpec,
  type MessageName,
  makeCase,
  sizeLabel,
} from "./case-spec.js";
import { GO_TRANSPORTS, isGoTransport } from "./go-case.js";
import type { TransportPlugin } from "./plugins.js";

/** The hand-written baselines, always available: what a user would write without nearwire. */
export const BASELINE_TRANSPORTS = [
  "bare-net-uds",
  "bare-net-tcp",
  "bare-grpc-js",
  "bare-grpc-js-tcp",
  "bare-postmessage",
] as const;

/**
 * RPC transports measured with the raw codec only and without the tick/request/metric rows,
 * unless `--full`: the worker rows are there to set beside shm-ring and postMessage.
 */
const RAW_ONLY = (transport: string) => transport.startsWith("worker-");

/**
 * Transports measured only at the smallest size, latency and throughput, unless `--full`: gRPC
 * over TCP loopback is there to set beside gRPC over a Unix socket, as the published figures do.
 */
const SMALL_ONLY = ["grpc-tcp", "bare-grpc-js-tcp", "go-grpc-tcp"];

/** What the matrix builder needs to know about the machine's packages. */
export interface MatrixInput {
  /** Usable nearwire transports (RPC and channel layer). */
  transports: Pick<TransportPlugin, "id" | "layer" | "baseline">[];
  /** Usable codec names, json first. */
  codecs: string[];
  /**
   * Add the Go yardstick's rows (`go-grpc-uds`, `go-grpc-tcp`, `go-uds`: latency and throughput,
   * no streams) beside the hand-written baselines: `go` is on PATH. Never in the CI matrix.
   */
  go?: boolean;
}

/** The transport (or baseline) a transport's rows are compared to; undefined for baselines. */
export function baselineOf(transport: string, input: MatrixInput): string | undefined {
  return input.transports.find((t) => t.id === transport)?.baseline;
}

const DEFAULT_SWEEP_CODECS = ["json", "raw"];
/** RPC transports that also get `bytes` (pass-through codec) rows at 64 B. */
const BYTES_ROWS = ["memory", "uds", "shm-ring-spin"];
const LARGE = 64 * 1024;

/** Builds the case list for a normal run (`--full` or the default matrix), then applies filters. */
export function buildMatrix(options: BenchOptions, input: MatrixInput): CaseSpec[] {
  const full = options.full;
  const sizes = options.sizes ?? (full ? [64, 1024, LARGE, 1024 * 1024] : [64, LARGE]);
  const messages = new Set<MessageName>(
    options.messages ?? (full ? ["tick", "request", "metric", "chunk"] : ["tick", "chunk"]),
  );
  const allCodecs = input.codecs.filter(
    (c) => options.codecs === undefined || options.codecs.includes(c),
  );
  const sweepCodecs =
    full || options.codecs !== undefined
      ? allCodecs
      : allCodecs.filter((c) => DEFAULT_SWEEP_CODECS.includes(c));
  const flowSizes = full ? sizes.filter((s) => s <= LARGE) : [Math.min(...sizes)];
  const streamSizes = full ? sizes : flowSizes;

  const all: CaseSpec[] = [];
  const sized = (
    transport: string,
    layer: CaseSpec["layer"],
    codec: string,
    mode: CaseMode,
    bytes: number,
  ) =>
    makeCase({
      mode,
      layer,
      transport,
      codec,
      message: "chunk",
      payload: sizeLabel(bytes),
      payloadBytes: bytes,
      inFlight: mode === "throughput" ? 64 : 1,
    });
  const flows = (transport: string, layer: CaseSpec["layer"], codec: string, into = all) => {
    if (into === all && !messages.has("chunk")) return;
    if (!full && SMALL_ONLY.includes(transport)) {
      const smallest = Math.min(...sizes);
      into.push(sized(transport, layer, codec, "latency", smallest));
      into.push(sized(transport, layer, codec, "throughput", smallest));
      return;
    }
    for (const s of sizes) into.push(sized(transport, layer, codec, "latency", s));
    for (const s of flowSizes) into.push(sized(transport, layer, codec, "throughput", s));
    if (isGoTransport(transport)) return; // the Go clients measure unary calls only
    for (const s of streamSizes) into.push(sized(transport, layer, codec, "stream", s));
  };

  const bare: CaseSpec[] = [];
  for (const t of BASELINE_TRANSPORTS) flows(t, "baseline", "bytes", bare);
  if (input.go === true) for (const t of GO_TRANSPORTS) flows(t, "baseline", "bytes", bare);
  if (!sizes.includes(64))
    bare.push(...BASELINE_TRANSPORTS.map((t) => sized(t, "baseline", "bytes", "latency", 64)));
  if (messages.has("chunk")) all.push(...bare);
  for (const t of input.transports) {
    if (t.layer === "channel") {
      flows(t.id, "channel", "frame");
      continue;
    }
    const rawOnly = !full && RAW_ONLY(t.id);
    for (const m of ["tick", "request", "metric"] as const) {
      if (!messages.has(m) || (!full && SMALL_ONLY.includes(t.id)) || rawOnly) continue;
      for (const codec of allCodecs) {
        all.push(
          makeCase({
            mode: "latency",
            layer: "rpc",
            transport: t.id,
            codec,
            message: m,
            payload: m,
            payloadBytes: 0,
            inFlight: 1,
          }),
        );
      }
    }
    for (const codec of rawOnly ? sweepCodecs.filter((c) => c === "raw") : sweepCodecs)
      flows(t.id, "rpc", codec);
    // The engine's own cost, like for like with the bare rows: a pass-through codec at 64 B.
    const bytesWanted = options.codecs === undefined || options.codecs.includes("bytes");
    if (BYTES_ROWS.includes(t.id) && messages.has("chunk") && bytesWanted && sizes.includes(64))
      for (const mode of ["latency", "throughput", "stream"] as const)
        all.push(sized(t.id, "rpc", "bytes", mode, 64));
  }
  return select(all, [...bare, ...all.filter((c) => c.layer !== "baseline")], options, input);
}

function matchesTransport(id: string, wanted: string[]): boolean {
  return wanted.some((w) => id === w || id.startsWith(`${w}-`));
}

/** Applies --transports/--codecs/--filter, then adds the rows each kept row is compared to. */
function select(
  all: CaseSpec[],
  pool: CaseSpec[],
  options: BenchOptions,
  input: MatrixInput,
): CaseSpec[] {
  const kept = all.filter(
    (c) =>
      (options.transports === undefined || matchesTransport(c.transport, options.transports)) &&
      (options.filter === undefined || options.filter.test(c.id) || options.filter.test(c.key)),
  );
  if (!options.baselines) return kept;
  const keys = new Set(kept.map((c) => c.key));
  const byKey = new Map(pool.map((c) => [c.key, c]));
  const out = [...kept];
  for (let i = 0; i < out.length; i++) {
    const c = out[i] as CaseSpec;
    const partner = comparisonKey(c, input);
    if (partner === undefined || keys.has(partner)) continue;
    const found = byKey.get(partner);
    if (found) {
      keys.add(partner);
      out.push(found);
    }
  }
  const order = new Map(pool.map((c, i) => [c.key, i]));
  return out.sort((a, b) => (order.get(a.key) ?? 0) - (order.get(b.key) ?? 0));
}

/**
 * The key of the row a case is compared to: same mode and payload on its baseline transport
 * (`bytes` codec for a bare baseline, the same codec for a nearwire one). Tick/request/metric
 * rows compare to the 64 B bare row. Undefined for baselines themselves.
 */
export function comparisonKey(c: CaseSpec, input: MatrixInput): string | undefined {
  const base = baselineOf(c.transport, input);
  if (base === undefined) return undefined;
  const bare = (BASELINE_TRANSPORTS as readonly string[]).includes(base);
  const codec = bare ? "bytes" : c.codec;
  const payload = bare && c.message !== "chunk" ? "64B" : c.payload;
  return `${c.mode}:${base}/${codec}/${payload}`;
}

/**
 * CI matrix: a small fixed set, 18 cases at 64 B, chosen for what they guard and for time (each
 * runs 3 times on each side of the A/B gate): round-trip latency of the RPC engine over uds,
 * in process (memory) and over shm-ring spin, next to their channels and the bare baselines, and
 * of grpc-uds; 64-in-flight throughput of uds, the engine, shm-ring spin (with its channel, for
 * the engine targets) and grpc-uds; one-way streaming of the uds and shm-ring channels and of a
 * server-streaming RPC over each and over grpc-uds. Cases of missing packages drop out. No Go
 * yardstick row: Go does not change with a nearwire commit, and the base tree of the A/B gate
 * may not have it.
 */
export function buildCiMatrix(input: MatrixInput): CaseSpec[] {
  const have = new Set(input.transports.map((t) => t.id));
  const out: CaseSpec[] = [];
  const add = (mode: CaseMode, transport: string, layer: CaseSpec["layer"], codec: string) => {
    if (layer !== "baseline" && !have.has(transport)) return;
    if (layer === "rpc" && codec !== "bytes" && !input.codecs.includes(codec)) return;
    out.push(
      makeCase({
        mode,
        layer,
        transport,
        codec,
        message: "chunk",
        payload: "64B",
        payloadBytes: 64,
        inFlight: mode === "throughput" ? 64 : 1,
      }),
    );
  };
  add("latency", "bare-net-uds", "baseline", "bytes");
  add("latency", "uds", "rpc", "raw");
  add("latency", "uds-channel", "channel", "frame");
  add("latency", "memory", "rpc", "bytes");
  // No bare grpc-js row: a baseline is never gated (shown as info), and grpc-js needs 5,000
  // warm-up calls at ~1 ms each, 6 runs of ~6.6 s per CI run for a row that judges nothing.
  add("latency", "grpc-uds", "rpc", "json");
  add("latency", "shm-ring-spin", "rpc", "raw");
  add("latency", "shm-ring-spin-channel", "channel", "frame");
  add("throughput", "bare-net-uds", "baseline", "bytes");
  add("throughput", "uds", "rpc", "raw");
  add("throughput", "memory", "rpc", "bytes");
  add("throughput", "shm-ring-spin", "rpc", "raw");
  add("throughput", "shm-ring-spin-channel", "channel", "frame");
  // The gRPC engine (nearwire's own HTTP/2): its throughput and stream rows are gated too.
  add("throughput", "grpc-uds", "rpc", "raw");
  add("stream", "grpc-uds", "rpc", "raw");
  add("stream", "uds-channel", "channel", "frame");
  add("stream", "uds", "rpc", "raw");
  add("stream", "shm-ring-spin-channel", "channel", "frame");
  add("stream", "shm-ring-spin", "rpc", "raw");
  return out;
}
