import type { Socket } from "node:net";
import { connect as netConnect } from "node:net";
import type { Channel, ChannelListener, ChannelProvider } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import {
  agreeMaxFrameBytes,
  announcesBatch,
  announcesCreditBytes,
  answerFeatureKeys,
  checkCreditWindowOption,
  checkMaxFrameBytes,
  checkRingBytes,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_RING_BYTES,
  LAYOUT_VERSION,
  maxPayloadFor,
  offerFeatureKeys,
  readCreditWindow,
  readFeatures,
  segmentBytesFor,
  type WaitMode,
} from "@nearwire/ring";
import {
  adoptAccepted,
  bindStreamListener,
  checkPeerAuthorization,
  createPeerGate,
  netPath,
  nothingListens,
  type PeerGate,
  parseAddress,
  peerRefused,
  SocketReader,
} from "@nearwire/socket";
import {
  ControlReads,
  checkHandshakeHeader,
  encodeHandshake,
  errorFrame,
  goAwayFrame,
  HANDSHAKE_MAGIC,
  HandshakeReader,
} from "./control-socket.js";
import { attachSegment, type CreatedSegment, createSegment } from "./segment.js";
import { ShmRingChannel } from "./shm-ring-channel.js";
import type { ShmRingOptions } from "./shm-ring-options.js";

interface Resolved {
  ringBytes: number;
  maxFrameBytes: number;
  wait: WaitMode;
  spinUs: number;
  shmDir: string;
  handshakeTimeoutMs: number;
  maxPendingHandshakes: number;
  maxConnections: number;
  acceptUnsealedSegments: boolean;
  batches: boolean;
  creditWindowBytes: number | undefined;
}

/**
 * Default of {@link ShmRingOptions.handshakeTimeoutMs} for rings of `ringBytes`, ms: 2 s plus
 * 4 ms per MiB of ring (committing a segment measured about 1.7 s per GiB of segment on a
 * loaded 2-core host): 2,016 ms for 4 MiB rings, 6,096 ms for 1 GiB.
 */
export function defaultHandshakeTimeoutMs(ringBytes: number): number {
  return 2000 + ringBytes / (256 * 1024);
}
/** Default of {@link ShmRingOptions.maxPendingHandshakes}. */
export const DEFAULT_MAX_PENDING_HANDSHAKES = 64;

function resolve(options: ShmRingOptions): Resolved {
  const ringBytes = options.ringBytes ?? DEFAULT_RING_BYTES;
  checkRingBytes(ringBytes);
  const wait = options.wait ?? "adaptive";
  if (wait !== "spin" && wait !== "park" && wait !== "adaptive") {
    throw new NearwireError(
      Code.InvalidArgument,
      `wait "${String(wait)}" is not spin, park or adaptive`,
    );
  }
  const spinUs = options.spinUs ?? 50;
  if (!(spinUs >= 0 && Number.isFinite(spinUs)))
    throw new NearwireError(Code.InvalidArgument, `spinUs ${spinUs} < 0`);
  const handshakeTimeoutMs = options.handshakeTimeoutMs ?? defaultHandshakeTimeoutMs(ringBytes);
  if (!(handshakeTimeoutMs > 0 && Number.isFinite(handshakeTimeoutMs)))
    throw new NearwireError(Code.InvalidArgument, `handshakeTimeoutMs ${handshakeTimeoutMs} <= 0`);
  const maxPendingHandshakes = options.maxPendingHandshakes ?? DEFAULT_MAX_PENDING_HANDSHAKES;
  if (!(Number.isInteger(maxPendingHandshakes) && maxPendingHandshakes >= 1)) {
    throw new NearwireError(
      Code.InvalidArgument,
      `maxPendingHandshakes ${maxPendingHandshakes} is not an integer >= 1`,
    );
  }
  const maxConnections = options.maxConnections ?? Number.POSITIVE_INFINITY;
  if (
    !(maxConnections === Number.POSITIVE_INFINITY || Number.isSafeInteger(maxConnections)) ||
    maxConnections < 1
  ) {
    throw new NearwireError(
      Code.InvalidArgument,
      `maxConnections ${maxConnections} is not an integer >= 1`,
    );
  }
  const maxFrameBytes = checkMaxFrameBytes(options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES);
  return {
    ringBytes,
    maxFrameBytes,
    wait,
    spinUs,
    shmDir: options.shmDir ?? "",
    handshakeTimeoutMs,
    maxPendingHandshakes,
    maxConnections,
    acceptUnsealedSegments: options.acceptUnsealedSegments === true,
    batches: options.batches === true,
    creditWindowBytes: checkCreditWindowOption(options.creditWindowBytes),
  };
}

/**
 * The shm-ring {@link ChannelProvider} (name `shm-ring`): a control Unix socket at
 * `options.address` (bound by `@nearwire/socket`'s `bindStreamListener`: stale file removed, live
 * one refused, 0600, file removed on close), and per accepted connection a shared segment with two SPSC rings.
 * At most `maxPendingHandshakes` handshakes run at once (the oldest is failed with
 * RESOURCE_EXHAUSTED to make room); a segment's memory is committed only once its client sent
 * `ready`; closing the listener fails the handshakes still pending.
 * Errors: INVALID_ARGUMENT (options, `path-too-long`), ALREADY_EXISTS `address-in-use`,
 * UNAVAILABLE (nobody listens, peer died), FAILED_PRECONDITION `layout-mismatch` /
 * `not-built`, RESOURCE_EXHAUSTED / PERMISSION_DENIED (segment creation).
 */
export function createShmRingChannelProvider(options: ShmRingOptions): ChannelProvider {
  const address = parseAddress(options.address);
  if (address.kind === "tcp") {
    throw new NearwireError(
      Code.InvalidArgument,
      `shm-ring needs a Unix socket address, not ${address.address}`,
    );
  }
  checkPeerAuthorization(address, options);
  const opts = resolve(options);
  return {
    name: "shm-ring",
    async listen(onChannel: (channel: Channel) => void): Promise<ChannelListener> {
      // Pending handshakes, oldest first (a Map iterates in insertion order).
      const pending = new Map<Socket, HandshakeReader>();
      let open = 0;
      const gate = await createPeerGate(address, options);
      const listener = await bindStreamListener(address, {
        onConnection(accepted) {
          // Reads into the thread's shared buffer, not a new 64 KiB buffer per doorbell.
          const socketReader = new SocketReader();
          const adopted = adoptAccepted(accepted, socketReader);
          const socket = adopted ?? accepted;
          if (open >= opts.maxConnections) {
            refuse(
              socket,
              new NearwireError(
                Code.ResourceExhausted,
                `${open} shm-ring connections open >= maxConnections ${opts.maxConnections}`,
                { reason: "too-many-connections" },
              ),
              adopted === undefined ? undefined : socketReader,
            );
            return;
          }
          open++;
          socket.once("close", () => open--);
          if (pending.size >= opts.maxPendingHandshakes) {
            const [oldest, reader] = pending.entries().next().value as [Socket, HandshakeReader];
            pending.delete(oldest);
            reader.abort(
              new NearwireError(
                Code.ResourceExhausted,
                `${pending.size + 1} shm-ring handshakes pending >= maxPendingHandshakes ${opts.maxPendingHandshakes}: dropped the oldest`,
              ),
            );
          }
          const reader = new HandshakeReader(
            socket,
            opts.handshakeTimeoutMs,
            undefined,
            adopted === undefined ? undefined : socketReader,
          );
          pending.set(socket, reader);
          accept(socket, reader, opts, gate).then(
            (channel) => {
              pending.delete(socket);
              onChannel(channel);
            },
            () => {
              pending.delete(socket);
              socket.destroy();
            },
          );
        },
      });
      return {
        address: listener.address,
        async close() {
          await listener.close();
          for (const reader of pending.values()) {
            reader.abort(
              new NearwireError(Code.Unavailable, "shm-ring listener closed during the handshake", {
                reason: "server-closing",
              }),
            );
          }
          pending.clear();
        },
      };
    },
    async connect(): Promise<Channel> {
      const socketReader = new SocketReader();
      const socket = await dial(netPath(address), options.address, socketReader);
      return handshakeClient(socket, socketReader, opts, options.address);
    },
  };
}

/** Answers a connection with a handshake error before its HELLO and closes it. */
function refuse(socket: Socket, error: NearwireError, reader: SocketReader | undefined): void {
  socket.on("error", () => {});
  socket.end(errorFrame(error));
  new ControlReads(socket, reader); // drops the peer's HELLO, so that its close is seen
  setTimeout(() => socket.destroy(), REFUSE_LINGER_MS).unref();
}

/** How long a refused connection may take to read its error before it is destroyed, ms. */
const REFUSE_LINGER_MS = 1000;

function dial(path: string, address: string, reader: SocketReader): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ path, allowHalfOpen: false, onread: reader.onread });
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", (err) =>
      reject(nothingListens(err, address) ?? NearwireError.from(err, Code.Unavailable)),
    );
  });
}

async function accept(
  socket: Socket,
  reader: HandshakeReader,
  opts: Resolved,
  gate: PeerGate,
): Promise<Channel> {
  // SO_PEERCRED now: the pid in HELLO is only what the client says.
  const credentials = gate.peerOf(socket, "shm-ring");
  let segment: CreatedSegment | undefined;
  let ready = false;
  try {
    const hello = await reader.next();
    checkHandshakeHeader(hello, "client");
    // Who the peer is decides before anything is allocated for it.
    if (gate.checks && !(await gate.admit(credentials))) throw peerRefused(credentials);
    // A client that does not say maxFrameBytes does not fragment: one record per frame.
    const maxFrameBytes = agreeMaxFrameBytes(
      opts.maxFrameBytes,
      hello.maxFrameBytes === undefined
        ? undefined
        : checkMaxFrameBytes(hello.maxFrameBytes, "client maxFrameBytes"),
      maxPayloadFor(opts.ringBytes),
    );
    // The features key only answers a client's (as HELLO's features field, PROTOCOL.md §6.1).
    const clientFeatures = readFeatures(hello.features, "client features");
    const clientWindow = readCreditWindow(
      clientFeatures,
      hello.creditWindowBytes,
      "client creditWindowBytes",
    );
    const answer = answerFeatureKeys(clientFeatures, opts.batches, opts.creditWindowBytes);
    // Sized and sealed, but only the header page is committed until the client sends ready.
    segment = createSegment(opts.ringBytes, opts.shmDir);
    socket.write(
      encodeHandshake({
        magic: HANDSHAKE_MAGIC,
        layout: LAYOUT_VERSION,
        pid: process.pid,
        fd: segment.fd,
        ringBytes: opts.ringBytes,
        segmentBytes: segmentBytesFor(opts.ringBytes),
        maxPayloadBytes: maxPayloadFor(opts.ringBytes),
        maxFrameBytes,
        nonce: segment.nonce,
        ...answer,
      }),
    );
    const readyFrame = await reader.next();
    if (readyFrame.ready !== true)
      throw new NearwireError(Code.Internal, "expected ready", { reason: "bad-preface" });
    ready = true;
    // The client reserved the pages before ready; reserving again costs a page walk and does
    // not trust it to have done so (an unbacked page would be SIGBUS here, not an error).
    segment.commit();
    segment.closeFd();
    const pid = credentials.pid ?? (typeof hello.pid === "number" ? hello.pid : 0);
    return new ShmRingChannel({
      socket,
      segment,
      maxFrameBytes,
      sendRing: 1,
      acceptsBatches: announcesBatch(answer.features),
      peerAcceptsBatches: announcesBatch(clientFeatures),
      peerCreditsBytes: announcesCreditBytes(clientFeatures),
      peerCreditWindowBytes: clientWindow,
      creditWindowBytes: answer.creditWindowBytes,
      wait: opts.wait,
      spinUs: opts.spinUs,
      peer: `shm-ring:pid ${pid}`,
      peerCredentials: { ...credentials, address: `shm-ring:pid ${pid}` },
      leftover: reader.finish(),
      reads: reader.reads,
    });
  } catch (err) {
    reader.finish();
    segment?.release();
    const e = NearwireError.from(err, Code.Internal);
    // After ready the client reads control bytes: fail it with G, not a handshake frame.
    if (!socket.destroyed) socket.end(ready ? goAwayFrame(e) : errorFrame(e));
    throw e;
  }
}

async function handshakeClient(
  socket: Socket,
  socketReader: SocketReader,
  opts: Resolved,
  address: string,
): Promise<Channel> {
  const reader = new HandshakeReader(socket, opts.handshakeTimeoutMs, address, socketReader);
  try {
    socket.write(
      encodeHandshake({
        magic: HANDSHAKE_MAGIC,
        layout: LAYOUT_VERSION,
        pid: process.pid,
        maxFrameBytes: opts.maxFrameBytes,
        ...offerFeatureKeys(opts.batches, opts.creditWindowBytes),
      }),
    );
    const offer = await reader.next();
    checkHandshakeHeader(offer, "server");
    const { pid, fd, ringBytes, nonce } = offer;
    if (
      typeof pid !== "number" ||
      typeof fd !== "number" ||
      typeof ringBytes !== "number" ||
      typeof nonce !== "string"
    ) {
      throw new NearwireError(Code.Internal, "handshake offer lacks pid, fd, ringBytes or nonce", {
        reason: "bad-preface",
      });
    }
    // A server that does not say maxFrameBytes does not fragment; one that does says the
    // agreed value, at most what this side asked for.
    const maxFrameBytes =
      offer.maxFrameBytes === undefined
        ? undefined
        : checkMaxFrameBytes(offer.maxFrameBytes, "server maxFrameBytes");
    if (
      maxFrameBytes !== undefined &&
      maxFrameBytes > Math.max(opts.maxFrameBytes, maxPayloadFor(ringBytes))
    ) {
      throw new NearwireError(
        Code.Internal,
        `server maxFrameBytes ${maxFrameBytes} > asked ${opts.maxFrameBytes}`,
        { reason: "bad-preface" },
      );
    }
    const serverFeatures = readFeatures(offer.features, "server features");
    const serverWindow = readCreditWindow(
      serverFeatures,
      offer.creditWindowBytes,
      "server creditWindowBytes",
    );
    const segment = attachSegment(pid, fd, { ringBytes, nonce }, opts.acceptUnsealedSegments);
    socket.write(encodeHandshake({ ready: true }));
    return new ShmRingChannel({
      socket,
      segment,
      ...(maxFrameBytes === undefined ? {} : { maxFrameBytes }),
      sendRing: 0,
      acceptsBatches: opts.batches,
      peerAcceptsBatches: announcesBatch(serverFeatures),
      peerCreditsBytes: announcesCreditBytes(serverFeatures),
      peerCreditWindowBytes: serverWindow,
      creditWindowBytes: opts.creditWindowBytes,
      wait: opts.wait,
      spinUs: opts.spinUs,
      peer: `shm-ring:${address}`,
      leftover: reader.finish(),
      reads: reader.reads,
    });
  } catch (err) {
    reader.finish();
    const e = NearwireError.from(err, Code.Internal);
    if (!socket.destroyed) socket.end(errorFrame(e));
    throw e;
  }
}
