/** One call on the server: the handler's context and the engine's state. */
import type { NearwireError } from "../nearwire-error.js";
import type { Peer } from "../peer.js";
import type { HandlerContext, Metadata } from "../transport.js";
import type { BoundMethod } from "./bound-method.js";
import type { DeadlineTimer } from "./deadline-timer.js";
import type { InboundCredit } from "./inbound-credit.js";
import type { InboundStream } from "./inbound-stream.js";
import type { OutboundCredit } from "./outbound-credit.js";

const EMPTY: Metadata = Object.freeze({}) as Metadata;

/**
 * One call on the server: the handler's context and the engine's state. The AbortController
 * is made only when a handler reads `signal`, which keeps the unary path lean.
 */
export class ServerCall implements HandlerContext {
  readonly method: string;
  readonly metadata: Metadata;
  readonly deadline: number | undefined;
  private trailerBag: Metadata | undefined;
  /** Response headers set by the handler; sent once, before the call's first response frame. */
  headerBag: Metadata | undefined;
  /** The REQUEST set TAKES_HEADERS, and no HEADERS went out yet. */
  headersPending: boolean;
  private controller: AbortController | undefined;
  private abortReason: NearwireError | undefined;
  /** Set when the call ended (the session's `end`): nothing more is sent for it. */
  finished = false;
  /** The client sent END (or REQUEST with END_STREAM) on a streamed request: no MESSAGE may follow. */
  halfClosed = false;
  deadlineTimer: DeadlineTimer | undefined = undefined;
  inbound: InboundStream<unknown> | undefined;
  /** Flow control of the streamed requests (client-streaming, bidi). */
  inCredit: InboundCredit | undefined = undefined;
  /** Unary and server-streaming calls collect their one request here when it is not inline. */
  single: { value?: unknown; count: number } | undefined;
  /** Credit for the responses this call may send; made for streaming responses only. */
  credit: OutboundCredit | undefined;

  constructor(
    readonly id: number,
    readonly bound: BoundMethod,
    /** The handler. */
    readonly impl: (input: unknown, ctx: ServerCall) => unknown,
    metadata: Metadata | undefined,
    timeoutMs: number,
    /** The session's one peer object (no allocation per call). */
    readonly peer: Peer,
    /** The client takes a HEADERS frame on this call (its REQUEST set TAKES_HEADERS). */
    takesHeaders: boolean,
    /** The handler lends its request messages (`ServedMethod.lends`). */
    readonly lends = false,
  ) {
    this.headersPending = takesHeaders;
    this.method = bound.path;
    this.metadata = metadata ?? EMPTY;
    this.deadline = timeoutMs > 0 ? Date.now() + timeoutMs : undefined;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  get trailers(): Metadata {
    if (this.trailerBag === undefined) this.trailerBag = {};
    return this.trailerBag;
  }

  get responseHeaders(): Metadata {
    if (this.headerBag === undefined) this.headerBag = {};
    return this.headerBag;
  }

  /** Trailers set by the handler, or undefined when none. */
  get trailersIfAny(): Metadata | undefined {
    return this.trailerBag;
  }

  /**
   * Ends the call's life on the server: aborts the signal and fails pending waits with `err`.
   * Tearing down many calls at once passes one shared error (no stack trace per call).
   */
  abort(err: NearwireError): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = err;
    this.deadlineTimer?.clear();
    this.controller?.abort(err);
    this.credit?.fail(err);
    this.inbound?.fail(err);
  }
}
