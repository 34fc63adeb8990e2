import { type Channel, type ChannelHandler, Code, NearwireError } from "../../src/index.js";

/**
 * Two in-process Channels joined back to back, delivering frames asynchronously (one
 * microtask later), for unit tests of the RPC engine. Transports are tested across processes
 * by the conformance suite; this only isolates the engine.
 */
export function channelPair(): [Channel, Channel] {
  const a = new PairEnd("a");
  const b = new PairEnd("b");
  a.other = b;
  b.other = a;
  return [a, b];
}

class PairEnd implements Channel {
  readonly maxPayloadBytes = 8 * 1024 * 1024;
  readonly transientPayloads = false;
  closed = false;
  other!: PairEnd;
  private handler: ChannelHandler | undefined;
  private readonly early: Array<[number, Uint8Array]> = [];
  /** Every frame this end sent, for assertions. */
  readonly sent: Array<[number, Uint8Array]> = [];

  constructor(readonly peer: string) {}

  start(handler: ChannelHandler): void {
    this.handler = handler;
    for (const [t, p] of this.early.splice(0)) handler.onFrame(t, p);
  }

  send(type: number, payload: Uint8Array): boolean {
    if (this.closed) throw new NearwireError(Code.Unavailable, "closed");
    this.sent.push([type, payload]);
    const copy = payload.slice();
    queueMicrotask(() => this.other.deliver(type, copy));
    return true;
  }

  deliver(type: number, payload: Uint8Array): void {
    if (this.closed) return;
    if (this.handler === undefined) this.early.push([type, payload]);
    else this.handler.onFrame(type, payload);
  }

  drained(): Promise<void> {
    return Promise.resolve();
  }
  pause(): void {}
  resume(): void {}

  async close(error?: NearwireError): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    queueMicrotask(() => {
      this.handler?.onClose(error);
      this.other.peerClosed(error);
    });
  }

  peerClosed(error?: NearwireError): void {
    if (this.closed) return;
    this.closed = true;
    this.handler?.onClose(
      error === undefined
        ? undefined
        : new NearwireError(Code.Unavailable, "peer closed", { reason: "peer-closed" }),
    );
  }
}
