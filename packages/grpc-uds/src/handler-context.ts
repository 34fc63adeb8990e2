/** GrpcHandlerContext: a handler's context over a grpc-js server call. */
import type { Metadata as GrpcMetadata } from "@grpc/grpc-js";
import { Code, type HandlerContext, type Metadata, NearwireError, type Peer } from "@nearwire/core";
import type { DrainGate } from "./drain-gate.js";
import { fromGrpcMetadata } from "./grpc-metadata.js";

/** The part of a grpc-js server call a {@link GrpcHandlerContext} reads. */
export interface ServerCallLike {
  readonly metadata: GrpcMetadata;
  cancelled: boolean;
  getDeadline(): Date | number;
  getPeer(): string;
  once(event: "cancelled", listener: () => void): unknown;
  off(event: "cancelled", listener: () => void): unknown;
}

/**
 * `HandlerContext` over a grpc-js server call. Built once per call and cheap when unused: the
 * metadata record, the trailers record and the AbortController are made on first access.
 *
 * grpc-js reports the end of every call, finished or not, as `cancelled`; the context counts it
 * as an abort only while the handler is running (until {@link finish}).
 */
export class GrpcHandlerContext implements HandlerContext {
  readonly method: string;
  readonly deadline: number | undefined;
  /** True once the status is decided; later grpc-js events no longer abort the signal. */
  finished = false;
  readonly #call: ServerCallLike;
  #metadata: Metadata | undefined;
  #trailers: Metadata | undefined;
  #controller: AbortController | undefined;
  #peer: Peer | undefined;
  #onCancelled: (() => void) | undefined;
  /** The server's gate while this call counts as open (until finished or ended by grpc-js). */
  #gate: DrainGate | undefined;
  readonly #onGone = (): void => this.#release();

  constructor(method: string, call: ServerCallLike, gate?: DrainGate) {
    this.method = method;
    this.#call = call;
    if (gate !== undefined) {
      gate.enter();
      this.#gate = gate;
      call.once("cancelled", this.#onGone);
    }
    const deadline = call.getDeadline();
    this.deadline =
      deadline instanceof Date
        ? deadline.getTime()
        : Number.isFinite(deadline)
          ? deadline
          : undefined;
  }

  get metadata(): Metadata {
    this.#metadata ??= fromGrpcMetadata(this.#call.metadata);
    return this.#metadata;
  }

  /**
   * grpc-js's peer string only (it accepts the connections itself, so no uid/gid/pid reach the
   * call; `allowUids`/`authorize` run before a connection is handed to grpc-js).
   */
  get peer(): Peer {
    this.#peer ??= { address: this.#call.getPeer() };
    return this.#peer;
  }

  get trailers(): Metadata {
    this.#trailers ??= {};
    return this.#trailers;
  }

  /** The trailers if a handler touched them, else undefined (nothing to send). */
  get touchedTrailers(): Metadata | undefined {
    return this.#trailers;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#call.cancelled && !this.finished) this.abort();
      else if (!this.finished) {
        this.#onCancelled = () => {
          if (!this.finished) this.abort();
        };
        this.#call.once("cancelled", this.#onCancelled);
      }
    }
    return this.#controller.signal;
  }

  /** Marks the call's status as decided and stops listening for cancellation. */
  finish(): void {
    this.finished = true;
    if (this.#onCancelled !== undefined) this.#call.off("cancelled", this.#onCancelled);
    this.#release();
  }

  /** The call no longer counts as open on the server's gate (once). */
  #release(): void {
    const gate = this.#gate;
    if (gate === undefined) return;
    this.#gate = undefined;
    this.#call.off("cancelled", this.#onGone);
    gate.leave();
  }

  /** The error a cancelled call's handler sees: DEADLINE_EXCEEDED past the deadline, else CANCELLED. */
  cancelError(): NearwireError {
    if (this.deadline !== undefined && Date.now() >= this.deadline) {
      return new NearwireError(Code.DeadlineExceeded, `deadline of ${this.method} exceeded`);
    }
    return new NearwireError(Code.Canceled, `${this.method} cancelled by the client`);
  }

  private abort(): void {
    this.#controller?.abort(this.cancelError());
  }
}
