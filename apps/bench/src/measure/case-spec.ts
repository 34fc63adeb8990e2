/**
 * What one benchmark case is: the unit the runner spawns a server and a client process for.
 *
 * A case id is `transport/codec/payload` (for example `uds/json/64B`, `shm-ring-spin/raw/tick`,
 * `bare-net-uds/bytes/64KiB`); the same id can be measured in several modes, so the unique key
 * is `mode:id` (`latency:uds/json/64B`). `--filter` matches a regex against both.
 */

/** How a case drives the connection. */
export type CaseMode = "latency" | "throughput" | "stream";

/** Which layer a case exercises: nearwire RPC, the nearwire channel layer, or a hand-written baseline. */
export type CaseLayer = "rpc" | "channel" | "baseline";

/** Messages of the benchmark set; `chunk` is the payload-size sweep (a Chunk of N data bytes). */
export type MessageName = "tick" | "request" | "metric" | "chunk";

/** All message names, in report order. */
export const MESSAGE_NAMES: readonly MessageName[] = ["tick", "request", "metric", "chunk"];

/** One benchmark case, serialisable (it is passed to child processes as JSON). */
export interface CaseSpec {
  /** `transport/codec/payload`. */
  id: string;
  /** `mode:id`, unique within a run. */
  key: string;
  mode: CaseMode;
  layer: CaseLayer;
  /** Transport id: `uds`, `tcp`, `grpc-uds`, `shm-ring-spin`, `uds-channel`, `bare-net-uds`, ... */
  transport: string;
  /** Codec name (`json`, `raw`, ...), `frame` for the channel layer, `bytes` for baselines. */
  codec: string;
  /** The message sent: a named message, or `chunk` with `payloadBytes` of data. */
  message: MessageName;
  /** Payload label: `tick`, `request`, `metric`, or a size such as `64B`, `64KiB`. */
  payload: string;
  /** Data bytes for `chunk`, baselines and channel frames; 0 for tick/request/metric. */
  payloadBytes: number;
  /** Calls in flight: 1 for latency, 64 for throughput, 1 stream at a time for stream. */
  inFlight: number;
}

/** Payload sizes of the sweep, in bytes, by label. */
export const SIZES: Readonly<Record<string, number>> = {
  "64B": 64,
  "1KiB": 1024,
  "64KiB": 64 * 1024,
  "1MiB": 1024 * 1024,
};

/** Size label for a byte count (`64B`, `64KiB`, `1MiB`); falls back to `<n>B`. */
export function sizeLabel(bytes: number): string {
  for (const [label, n] of Object.entries(SIZES)) if (n === bytes) return label;
  return `${bytes}B`;
}

/** Builds a case spec with its id and key filled in. */
export function makeCase(c: Omit<CaseSpec, "id" | "key">): CaseSpec {
  const id = `${c.transport}/${c.codec}/${c.payload}`;
  return { ...c, id, key: `${c.mode}:${id}` };
}
