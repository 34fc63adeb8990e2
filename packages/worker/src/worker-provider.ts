import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import type { Channel, ChannelListener, ChannelProvider } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import {
  agreeMaxFrameBytes,
  announcesBatch,
  announcesCreditBytes,
  answerFeatureKeys,
  checkCreditWindowOption,
  checkHeader,
  checkMaxFrameBytes,
  checkRingBytes,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_RING_BYTES,
  maxPayloadFor,
  offerFeatureKeys,
  readCreditWindow,
  readFeatures,
} from "@nearwire/ring";
import { WorkerChannel } from "./worker-channel.js";
import { deathOf } from "./worker-death.js";
import type { WaitMode, WorkerChannelOptions, WorkerEndpoint } from "./worker-options.js";
import { createWorkerSegment } from "./worker-segment.js";

/**
 * The frame limit a listener's `ready` states: `agreed` when it says none (it does not
 * fragment), else its value, which must lie in [`agreed`, max(`agreed`, `asked`)]; INTERNAL
 * `bad-preface` otherwise.
 */
function listenerFrameBytes(value: unknown, agreed: number, asked: number): number {
  if (value === undefined) return agreed;
  const most = Math.max(agreed, asked);
  if (typeof value !== "number" || !Number.isInteger(value) || value < agreed || value > most) {
    throw new NearwireError(
      Code.Internal,
      `listener maxFrameBytes ${String(value)} outside [${agreed}, ${most}]`,
      { reason: "bad-preface" },
    );
  }
  return value;
}

/** A listener's `error` answer as the error the connect fails with. */
function refusal(m: ListenerAnswer): NearwireError {
  const code = typeof m.code === "number" ? m.code : Code.Unknown;
  const opts = typeof m.reason === "string" ? { reason: m.reason as never } : {};
  return new NearwireError(code, m.message ?? "worker refused the connection", opts);
}

/** What a listener answers on the port of an offer. */
interface ListenerAnswer {
  nearwire?: string;
  maxFrameBytes?: unknown;
  features?: unknown;
  creditWindowBytes?: unknown;
  code?: number;
  reason?: string;
  message?: string;
}

/*
 * Set-up over the endpoint (the only messages nearwire posts; all carry `nearwire`):
 *
 *   connector -> listener  {nearwire:"offer", version:1, buffer:SharedArrayBuffer,
 *                           ringBytes:C, maxFrameBytes:Fc, features?:u32,
 *                           creditWindowBytes?:u32, nonce:"<16 hex>",
 *                           port:MessagePort (transferred)}
 *   listener  -> connector {nearwire:"listening"}   posted by listen(): an offer that went
 *                           unseen (the worker started its port before listening) is re-sent
 *   on the offer's port:   {nearwire:"ready", maxFrameBytes:F, features?:u32,
 *                           creditWindowBytes?:u32} | {nearwire:"error", code, reason?, message}
 *
 * `features` and `creditWindowBytes` are those of shm-ring's handshake (PROTOCOL.md §6.1): the
 * listener answers them only to an offer that has `features`.
 *
 * F, the connection's frame limit, is max(C/2 - 16, min(listener's, Fc)); an absent
 * maxFrameBytes (in either) means that side does not fragment: one record per frame.
 *
 * The offer's port is the connection's own: after "ready" it carries nothing, and its `close`
 * event is the peer's end (clean, with an error, or death: see worker-segment.ts).
 */

/** Default connect time limit, ms. */
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;
const WAIT_MODES: readonly WaitMode[] = ["spin", "park", "adaptive"];

interface Offer {
  nearwire: "offer";
  version: number;
  buffer: SharedArrayBuffer;
  ringBytes: number;
  maxFrameBytes?: unknown;
  /** Feature bits (FEATURE_BATCH), when the connector says any. */
  features?: unknown;
  /** The connector's byte window (with the features' window bit, PROTOCOL.md §5.4). */
  creditWindowBytes?: unknown;
  nonce: string;
  port: MessagePort;
}

function isOffer(m: unknown): m is Offer {
  const o = m as Partial<Offer> | null;
  return typeof o === "object" && o !== null && o.nearwire === "offer";
}

function describe(endpoint: WorkerEndpoint): string {
  return endpoint instanceof Worker ? `worker:${endpoint.threadId}` : "worker:port";
}

/**
 * A {@link ChannelProvider} (name `worker`) between this thread and the thread behind
 * `options.port`. `connect()` creates a segment (a `SharedArrayBuffer` laid out as
 * PROTOCOL.md §6) and offers it over the port; `listen()` accepts such offers (any number of
 * connections per endpoint). Rejects connect with UNAVAILABLE when the worker exits or the
 * port closes first, DEADLINE_EXCEEDED after `handshakeTimeoutMs`.
 */
export function createWorkerChannelProvider(options: WorkerChannelOptions): ChannelProvider {
  const config = providerConfig(options);
  return {
    name: "worker",
    listen: (onChannel) => listenForOffers(config, onChannel),
    connect: () => connectByOffer(config),
  };
}

/** A provider's options, checked, with their defaults. */
interface ProviderConfig {
  readonly endpoint: WorkerEndpoint;
  readonly ringBytes: number;
  readonly wait: WaitMode;
  readonly spinUs: number;
  readonly maxFrameBytes: number;
  readonly handshakeTimeoutMs: number;
  readonly batches: boolean;
  /** The byte window this side announces (checked), or undefined. */
  readonly creditWindowBytes: number | undefined;
  /** How channels name the other side: `worker:<threadId>` or `worker:port`. */
  readonly peer: string;
}

/** Checks `options` and fills in the defaults (INVALID_ARGUMENT on a bad value). */
function providerConfig(options: WorkerChannelOptions): ProviderConfig {
  const ringBytes = options.ringBytes ?? DEFAULT_RING_BYTES;
  checkRingBytes(ringBytes);
  const wait = options.wait ?? "adaptive";
  if (!WAIT_MODES.includes(wait))
    throw new NearwireError(Code.InvalidArgument, `wait ${String(wait)} is not spin|park|adaptive`);
  return {
    endpoint: options.port,
    ringBytes,
    wait,
    spinUs: options.spinUs ?? 50,
    maxFrameBytes: checkMaxFrameBytes(options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES),
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
    batches: options.batches === true,
    creditWindowBytes: checkCreditWindowOption(options.creditWindowBytes),
    peer: describe(options.port),
  };
}

/** `listen()`: takes every offer posted on the endpoint, each a connection. */
async function listenForOffers(
  config: ProviderConfig,
  onChannel: (channel: Channel) => void,
): Promise<ChannelListener> {
  const { endpoint, peer } = config;
  const seen = new Set<string>();
  const onMessage = (m: unknown): void => {
    if (isOffer(m)) acceptOffer(config, m, seen, onChannel);
  };
  endpoint.on("message", onMessage);
  endpoint.postMessage({ nearwire: "listening" });
  return {
    address: peer,
    close: async () => {
      endpoint.off("message", onMessage);
    },
  };
}

/**
 * One offer: checked (layout, limits, features), then answered `ready` and handed to
 * `onChannel` as a channel, or answered `error`. `seen` holds the nonces of the connections
 * taken, so a re-sent offer of one is dropped.
 */
function acceptOffer(
  config: ProviderConfig,
  m: Offer,
  seen: Set<string>,
  onChannel: (channel: Channel) => void,
): void {
  const { maxFrameBytes, batches, wait, spinUs, peer } = config;
  const port = m.port;
  let peerWindow: number | undefined;
  const refuse = (err: NearwireError): void => {
    const body: Record<string, unknown> = {
      nearwire: "error",
      code: err.code,
      message: err.message,
    };
    if (err.reason !== undefined) body.reason = err.reason;
    port.postMessage(body);
    port.close();
  };
  let agreed: number;
  let offered: number | undefined;
  if (seen.has(m.nonce)) {
    port.close(); // a re-sent offer of a connection already accepted
    return;
  }
  try {
    if (m.version !== 1 || !(m.buffer instanceof SharedArrayBuffer)) {
      throw new NearwireError(Code.FailedPrecondition, "worker offer of another version", {
        reason: "layout-mismatch",
      });
    }
    checkRingBytes(m.ringBytes);
    checkHeader(m.buffer, { ringBytes: m.ringBytes, nonce: m.nonce });
    agreed = agreeMaxFrameBytes(
      maxFrameBytes,
      m.maxFrameBytes === undefined
        ? undefined
        : checkMaxFrameBytes(m.maxFrameBytes, "connector maxFrameBytes"),
      maxPayloadFor(m.ringBytes),
    );
    offered = readFeatures(m.features, "connector features");
    peerWindow = readCreditWindow(offered, m.creditWindowBytes, "connector creditWindowBytes");
  } catch (err) {
    refuse(NearwireError.from(err, Code.FailedPrecondition));
    return;
  }
  seen.add(m.nonce);
  // As HELLO's features (PROTOCOL.md §4.1): answered only when the offer has them.
  const answer = answerFeatureKeys(offered, batches, config.creditWindowBytes);
  const channel = new WorkerChannel({
    buffer: m.buffer,
    ringBytes: m.ringBytes,
    maxFrameBytes: agreed,
    acceptsBatches: announcesBatch(answer.features),
    peerAcceptsBatches: announcesBatch(offered),
    peerCreditsBytes: announcesCreditBytes(offered),
    peerCreditWindowBytes: peerWindow,
    creditWindowBytes: answer.creditWindowBytes,
    side: 1,
    port,
    wait,
    spinUs,
    peer,
  });
  port.once("close", () => seen.delete(m.nonce));
  port.postMessage({
    nearwire: "ready",
    maxFrameBytes: agreed,
    ...answer,
  });
  onChannel(channel);
}

/** `connect()`: offers a new segment to the endpoint until a listener takes it. */
function connectByOffer(config: ProviderConfig): Promise<Channel> {
  const { endpoint, ringBytes, maxFrameBytes, handshakeTimeoutMs, batches, wait, spinUs, peer } =
    config;
  const window = config.creditWindowBytes;
  const { buffer, nonce } = createWorkerSegment(ringBytes);
  return new Promise<Channel>((resolve, reject) => {
    // Each offered port with its listener (removed by reference: Deno's MessagePort has
    // no removeAllListeners).
    const ports: Array<[MessagePort, (m: ListenerAnswer) => void]> = [];
    let agreed = maxPayloadFor(ringBytes);
    let peerBatches = false;
    let peerCreditsBytes = false;
    let peerWindow: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    /** Ends the connect: with the port the listener took, or with why it failed. */
    const finish = (outcome: MessagePort | NearwireError): void => {
      const winner = outcome instanceof NearwireError ? undefined : outcome;
      clearTimeout(timer);
      endpoint.off("message", onEndpointMessage);
      if (endpoint instanceof Worker) endpoint.off("exit", onGone);
      else endpoint.off("close", onGone);
      for (const [p, onPortMessage] of ports) {
        p.off("message", onPortMessage);
        if (p !== winner) p.close();
      }
      if (winner === undefined) {
        reject(outcome);
        return;
      }
      resolve(
        new WorkerChannel({
          buffer,
          ringBytes,
          maxFrameBytes: agreed,
          acceptsBatches: batches,
          peerAcceptsBatches: peerBatches,
          peerCreditsBytes,
          peerCreditWindowBytes: peerWindow,
          creditWindowBytes: window,
          side: 0,
          port: winner,
          wait,
          spinUs,
          peer,
          ...(endpoint instanceof Worker ? { deathCause: () => deathOf(endpoint) } : {}),
        }),
      );
    };
    /** A listener's `ready`: the port, once its limits and features are taken. */
    const ready = (m: ListenerAnswer, port: MessagePort): MessagePort | NearwireError => {
      try {
        agreed = listenerFrameBytes(m.maxFrameBytes, agreed, maxFrameBytes);
        const features = readFeatures(m.features, "listener features");
        peerBatches = announcesBatch(features);
        peerCreditsBytes = announcesCreditBytes(features);
        peerWindow = readCreditWindow(features, m.creditWindowBytes, "listener creditWindowBytes");
        return port;
      } catch (err) {
        return NearwireError.from(err, Code.Internal);
      }
    };
    const offer = (): void => {
      const { port1, port2 } = new MessageChannel();
      const onPortMessage = (m: ListenerAnswer): void => {
        if (m?.nearwire === "ready") finish(ready(m, port1));
        else if (m?.nearwire === "error") finish(refusal(m));
      };
      ports.push([port1, onPortMessage]);
      port1.on("message", onPortMessage);
      try {
        endpoint.postMessage(
          {
            nearwire: "offer",
            version: 1,
            buffer,
            ringBytes,
            maxFrameBytes,
            ...offerFeatureKeys(batches, window),
            nonce,
            port: port2,
          },
          [port2],
        );
      } catch (err) {
        finish(NearwireError.from(err, Code.Unavailable));
      }
    };
    const onEndpointMessage = (m: unknown): void => {
      if ((m as { nearwire?: unknown } | null)?.nearwire === "listening") offer();
    };
    const onGone = (): void => {
      const cause = endpoint instanceof Worker ? deathOf(endpoint) : undefined;
      const how = cause === undefined ? "" : ` (${cause})`;
      finish(
        new NearwireError(Code.Unavailable, `${peer} exited before accepting${how}`, {
          reason: "peer-closed",
        }),
      );
    };
    endpoint.on("message", onEndpointMessage);
    if (endpoint instanceof Worker) endpoint.once("exit", onGone);
    else endpoint.once("close", onGone);
    timer = setTimeout(
      () =>
        finish(
          new NearwireError(
            Code.DeadlineExceeded,
            `${peer} did not accept within ${handshakeTimeoutMs} ms`,
          ),
        ),
      handshakeTimeoutMs,
    );
    offer();
  });
}
