/** The conformance service the transport suites call (schema in conformance.proto). */
import {
  bidiStreaming,
  clientStreaming,
  defineService,
  messageType,
  serverStreaming,
  unary,
} from "@nearwire/core";

/**
 * Message types of the conformance service. Plain JS objects with protobuf-friendly fields
 * (numbers are non-negative integers below 2^31 unless noted, strings, string maps), so that
 * any codec can carry them; `conformance.proto` in this package is the same schema.
 */

/** `echo` request and response; `generate` response. */
export interface EchoMessage {
  /** Caller-chosen id, echoed back (concurrency tests use it to match answers). */
  id: number;
  /** Free text; the limits suite pads it to hit an exact encoded size. */
  text: string;
}

/** `generate` request: the server answers with an {@link EchoMessage} of `textLength` "x"s. */
export interface GenerateRequest {
  id: number;
  /** Length of the response's `text`, in characters (ASCII, so also bytes). */
  textLength: number;
}

/** `fail` request: the handler throws a NearwireError with this code, message and trailers. */
export interface FailRequest {
  /** A status code, 1–16. */
  code: number;
  message: string;
  /** Sent as the error's trailers (NearwireError `metadata`). */
  trailers: Record<string, string>;
}

/** An empty message. */
export type Empty = Record<string, never>;

/** `metadata` response: what the handler saw of its call. */
export interface MetadataReply {
  /** `ctx.method`: `/package.Service/Method`. */
  method: string;
  /** `ctx.metadata`: the request headers. */
  metadata: Record<string, string>;
  /** Milliseconds from the handler's start to `ctx.deadline`; -1 when there is no deadline. */
  deadlineInMs: number;
}

/** `sleep` request. */
export interface SleepRequest {
  /** Groups calls in the server's stats (see {@link StatsReply}); empty: not tracked by tag. */
  tag: string;
  /** How long the handler waits unless `ctx.signal` aborts first, in ms. */
  ms: number;
}

/** `sleep` response. */
export interface SleepReply {
  tag: string;
  /** True when `ctx.signal` aborted before `ms` passed (the reply then usually goes nowhere). */
  aborted: boolean;
}

/** `count` and `produce` request. */
export interface CountRequest {
  tag: string;
  /** Number of items to stream (seq 0 … n-1). */
  n: number;
  /** Length of each item's `text`, in characters. */
  payloadBytes: number;
  /** With `failCode` ≠ 0: throw a NearwireError with `failCode` after this many items. */
  failAfter: number;
  /** 0: no failure. */
  failCode: number;
}

/** An item of `count`, `produce`, `sum` and `bidi`. */
export interface StreamItem {
  /** Sequence number, from 0. */
  seq: number;
  text: string;
  /** The request header `x-note`, when the call carried one (else empty). */
  note: string;
}

/** `sum` response. */
export interface SumReply {
  /** Items received. */
  count: number;
  /** {@link checksumStep} folded over every item, in arrival order. */
  checksum: number;
  /** First item whose `seq` was not the expected one; -1 when all were in order. */
  firstBadSeq: number;
  /** The request header `x-note`, when present. */
  note: string;
}

/** `stats` request. */
export interface StatsRequest {
  /** The tag whose per-tag counters to return. */
  tag: string;
}

/** Server-side counters, overall and for one tag. */
export interface StatsReply {
  /** Server process id. */
  pid: number;
  /** Server process resident set size, in bytes. */
  rssBytes: number;
  /** Handlers started, over all methods except `stats`. */
  callsStarted: number;
  /** Handlers that returned or threw. */
  callsFinished: number;
  /** Handlers whose `ctx.signal` aborted. */
  callsAborted: number;
  /** For the requested tag: handlers started. */
  tagStarted: number;
  /** For the requested tag: handlers that returned or threw. */
  tagFinished: number;
  /** For the requested tag: handlers whose `ctx.signal` aborted. */
  tagAborted: number;
  /** For the requested tag: items yielded by `count`/`produce`/`bidi` so far (sum over calls). */
  tagProduced: number;
}

/** One step of the `sum` checksum: order-sensitive, unsigned 32-bit. */
export function checksumStep(checksum: number, item: StreamItem): number {
  return (Math.imul(checksum, 31) + item.seq + item.text.length) >>> 0;
}

/**
 * The service every transport serves in the conformance suite (`nearwire.conformance.Conformance`).
 *
 * - `echo`: returns the request.
 * - `generate`: returns `textLength` "x"s (response-size limit tests).
 * - `fail`: throws a NearwireError with the requested code and trailers.
 * - `metadata`: reports the request headers, method path and deadline the handler saw.
 * - `sleep`: waits `ms` or until `ctx.signal` aborts, recording the abort (stats).
 * - `count`: streams n items with seq; optional failure after k items.
 * - `produce`: like `count`; its progress is the backpressure probe (stats `tagProduced`).
 * - `sum`: consumes a stream, checks seq order, returns count and checksum.
 * - `bidi`: echoes each item as it arrives.
 * - `stats`: server counters and RSS.
 *
 * Per-tag stats: `sleep`, `count` and `produce` take the tag from the request; `sum` and `bidi`
 * from the request header `x-tag`.
 */
export const conformanceService = defineService("nearwire.conformance.Conformance", {
  echo: unary(
    messageType<EchoMessage>("nearwire.conformance.EchoMessage"),
    messageType<EchoMessage>("nearwire.conformance.EchoMessage"),
  ),
  generate: unary(
    messageType<GenerateRequest>("nearwire.conformance.GenerateRequest"),
    messageType<EchoMessage>("nearwire.conformance.EchoMessage"),
  ),
  fail: unary(
    messageType<FailRequest>("nearwire.conformance.FailRequest"),
    messageType<Empty>("nearwire.conformance.Empty"),
  ),
  metadata: unary(
    messageType<Empty>("nearwire.conformance.Empty"),
    messageType<MetadataReply>("nearwire.conformance.MetadataReply"),
  ),
  sleep: unary(
    messageType<SleepRequest>("nearwire.conformance.SleepRequest"),
    messageType<SleepReply>("nearwire.conformance.SleepReply"),
  ),
  count: serverStreaming(
    messageType<CountRequest>("nearwire.conformance.CountRequest"),
    messageType<StreamItem>("nearwire.conformance.StreamItem"),
  ),
  produce: serverStreaming(
    messageType<CountRequest>("nearwire.conformance.CountRequest"),
    messageType<StreamItem>("nearwire.conformance.StreamItem"),
  ),
  sum: clientStreaming(
    messageType<StreamItem>("nearwire.conformance.StreamItem"),
    messageType<SumReply>("nearwire.conformance.SumReply"),
  ),
  bidi: bidiStreaming(
    messageType<StreamItem>("nearwire.conformance.StreamItem"),
    messageType<StreamItem>("nearwire.conformance.StreamItem"),
  ),
  stats: unary(
    messageType<StatsRequest>("nearwire.conformance.StatsRequest"),
    messageType<StatsReply>("nearwire.conformance.StatsReply"),
  ),
});

/** The type of {@link conformanceService}. */
export type ConformanceService = typeof conformanceService;

/**
 * The conformance service plus a method no server implements (`missing`): a client made from
 * this definition calls `/nearwire.conformance.Conformance/missing` to provoke UNIMPLEMENTED.
 */
export const conformanceServiceWithMissing = defineService(conformanceService.typeName, {
  ...conformanceService.methods,
  missing: unary(
    messageType<EchoMessage>("nearwire.conformance.EchoMessage"),
    messageType<EchoMessage>("nearwire.conformance.EchoMessage"),
  ),
});

/** A service name no server registers (`nearwire.conformance.Nowhere`), for UNIMPLEMENTED. */
export const unknownService = defineService("nearwire.conformance.Nowhere", {
  echo: unary(
    messageType<EchoMessage>("nearwire.conformance.EchoMessage"),
    messageType<EchoMessage>("nearwire.conformance.EchoMessage"),
  ),
});
