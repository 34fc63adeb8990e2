/** The four bench messages (Tick, Request, Metric, Chunk) as TypeScript types and message types. */
import { messageType } from "@nearwire/core";

/*
 * Integers: u32 fields hold [0, 2^32-1]; "u64" fields (seq, timestampNs, deadlineMs,
 * timestampMs) hold JS numbers in [0, 2^53-1] in every codec (numbers, not bigint, so that JSON
 * and MessagePack carry them without options). Floats are IEEE 754 doubles.
 */

/** A market-data snapshot (~48-110 B encoded, by codec). */
export interface Tick {
  /** Instrument id, u32. */
  symbolId: number;
  /** Sequence number, integer in [0, 2^53-1]. */
  seq: number;
  /** Exchange timestamp in nanoseconds of a monotonic clock, integer in [0, 2^53-1] (~104 days). */
  timestampNs: number;
  /** Best bid price. */
  bid: number;
  /** Best ask price. */
  ask: number;
  /** Size at the bid, u32. */
  bidSize: number;
  /** Size at the ask, u32. */
  askSize: number;
  /** Bit flags, u32. */
  flags: number;
}

/** A typical RPC request with ids, a method name, a few strings and tags (~256 B encoded). */
export interface Request {
  /** Request id. */
  id: string;
  /** Trace id (hex). */
  traceId: string;
  /** Full method name (`/package.Service/Method`). */
  method: string;
  /** Calling user. */
  user: string;
  /** Free-form tags (`key:value`). */
  tags: string[];
  /** Absolute deadline in milliseconds since the epoch, integer in [0, 2^53-1]. */
  deadlineMs: number;
  /** Priority, u32. */
  priority: number;
  /** Small opaque body. */
  body: Uint8Array;
}

/** A metric sample: timestamp, value and string tags. */
export interface Metric {
  /** Milliseconds since the epoch, integer in [0, 2^53-1]. */
  timestampMs: number;
  /** Metric name. */
  name: string;
  /** Sample value. */
  value: number;
  /** Tags; keys are unique (a map), `__proto__` is not a valid key. */
  tags: Record<string, string>;
}

/** A slice of a file: 64 B to 1 MiB of bytes in the benchmarks (64 KiB typical). */
export interface Chunk {
  /** Chunk number, u32. */
  seq: number;
  /** True on the file's last chunk. */
  last: boolean;
  /** The bytes. */
  data: Uint8Array;
}

/** `nearwire.bench.Tick`. */
export const TickType = messageType<Tick>("nearwire.bench.Tick");
/** `nearwire.bench.Request`. */
export const RequestType = messageType<Request>("nearwire.bench.Request");
/** `nearwire.bench.Metric`. */
export const MetricType = messageType<Metric>("nearwire.bench.Metric");
/** `nearwire.bench.Chunk`. */
export const ChunkType = messageType<Chunk>("nearwire.bench.Chunk");
