import {
  type Channel,
  type ChannelHandler,
  type ChannelProvider,
  Code,
  NearwireError,
} from "../../src/index.js";

/**
 * Two in-process Channels joined back to back, delivering frames asynchronously (one
 * microtask later), for unit tests of the RPC engine. Transports are tested across processes
 * by the conformance suite; this only isolates the engine.
 */
export function channelPair(
  options: { sendWith?: boolean; batches?: boolean; maxPayloadBytes?: number } = {},
): [Channel, Channel] {
  const a = new PairEnd("a", options);
  const b = new PairEnd("b", options);
  if (options.sendWith) {
    a.sendWith = a.sendWithImpl;
    b.sendWith = b.sendWithImpl;
  }
  a.other = b;
  b.other = a;
  return [a, b];
}

/**
 * A ChannelProvider over one pair: `connect()` gives `clientEnd`; `listen()` registers the
 * server, and `accept()` hands it `serverEnd` (call it after `listen()` resolved).
 */
export function pairProvider(
  serverEnd: Channel,
  clientEnd: Channel,
): { provider: ChannelProvider; accept(): void } {
  let accepted: ((ch: Channel) => void) | undefined;
  return {
    provider: {
      name: "pair",
      async listen(onChannel) {
        accepted = onChannel;
        return { address: "pair", close: async () => {} };
      },
      async connect() {
        return clientEnd;
      },
    },
    accept: () => accepted?.(serverEnd),
  };
}

class PairEnd implements Channel {
  readonly maxPayloadBytes: number;
  /** Both ends as if both had announced BATCH in their preface (`batches`). */
  readonly acceptsBatches: boolean;
  readonly peerAcceptsBatches: boolean;
  readonly transientPayloads = false;
  closed = false;
  other!: PairEnd;
  private handler: ChannelHandler | undefined;
  private readonly early: Array<[number, Uint8Array]> = [];
  /** Every frame this end sent, for assertions. */
  readonly sent: Array<[number, Uint8Array]> = [];
  /** Frames sent through `sendWith` (encoded in place). */
  inPlace = 0;
  sendWith?: (
    type: number,
    fill: (dest: Uint8Array, offset: number, limit: number) => number,
  ) => boolean;
  private readonly slot = new Uint8Array(64 * 1024);

  /** `sendWith` over a scratch slot (with a guard byte before it, which must stay untouched). */
  readonly sendWithImpl = (
    type: number,
    fill: (dest: Uint8Array, offset: number, limit: number) => number,
  ): boolean => {
    if (this.closed) return false;
    this.slot[0] = 0xee;
    const n = fill(this.slot, 1, this.slot.length - 1);
    if (this.slot[0] !== 0xee) throw new Error("fill wrote before its offset");
    if (n < 0) return false;
    this.inPlace++;
    return this.send(type, this.slot.slice(1, 1 + n));
  };

  constructor(
    readonly peer: string,
    options: { batches?: boolean; maxPayloadBytes?: number },
  ) {
    this.maxPayloadBytes = options.maxPayloadBytes ?? 8 * 1024 * 1024;
    this.acceptsBatches = options.batches === true;
    this.peerAcceptsBatches = this.acceptsBatches;
  }

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
