/** createUdsChannelProvider: Channels over Unix sockets (path or abstract) and TCP. */
import net from "node:net";
import {
  type Channel,
  type ChannelListener,
  type ChannelProvider,
  Code,
  NearwireError,
  type PeerAuthorizationOptions,
} from "@nearwire/core";
import { FrameType, MIN_CREDIT_WINDOW_BYTES, SEND_WINDOW_BYTES } from "@nearwire/core/protocol";
import {
  DEFAULT_MAX_FRAME_BYTES,
  encodeFrame,
  encodeGoAway,
  MIN_MAX_FRAME_BYTES,
  PEEK_READ_BYTES,
} from "@nearwire/frame";
import {
  adoptAccepted,
  bindStreamListener,
  checkPeerAuthorization,
  createPeerGate,
  formatTcp,
  netPath,
  nothingListens,
  parseAddress,
  peerRefused,
  SocketReader,
} from "@nearwire/socket";
import { GOAWAY_LINGER_MS, SocketChannel, type SocketChannelOptions } from "./socket-channel.js";

/**
 * Options of {@link createUdsChannelProvider}. `allowUids` / `authorize` (listener side) are
 * checked on accept, before the preface is answered: a refused peer gets GOAWAY
 * PERMISSION_DENIED (also to `onRejected`) and is closed; see `PeerAuthorizationOptions`.
 */
export interface UdsChannelOptions extends PeerAuthorizationOptions {
  /**
   * Where to listen or connect: `/abs/path.sock` or `unix:/abs/path.sock` (Unix socket file),
   * `unix-abstract:name` or `@name` (Linux abstract socket), `tcp:127.0.0.1:7000` or
   * `host:port` (TCP, TCP_NODELAY on; port 0 to listen on a free port). See `parseAddress` of
   * `@nearwire/socket`.
   */
  address: string;
  /**
   * Largest frame payload this side accepts, in bytes; announced to the peer in HELLO. Default
   * 4 MiB; at least 1024. A channel's `maxPayloadBytes` is the smaller of both sides' values.
   */
  maxFrameBytes?: number;
  /**
   * Announce in the preface that this side takes BATCH frames (several RPC messages in one
   * frame, PROTOCOL.md §4.1 and §5.2): for the RPC engine, which `createUdsTransport` runs on
   * top (its `batches` option, default true). Default false: a channel used directly never
   * sees a BATCH.
   */
  batches?: boolean;
  /**
   * Bytes of messages a peer may send on one call before this side's credit for them comes
   * back (the byte window, PROTOCOL.md §5.4), 64 KiB … 2 MiB; announced in the preface. Left
   * out, a peer holds 2 MiB per stream. A server that takes many large streams at once lowers
   * it to bound what is on the way to it (10 uploads × 512 KiB instead of × 2 MiB); a stream
   * of messages larger than half the window then has one message on the way at a time. A
   * server announces it only to clients that send the preface's features field (nearwire's
   * RPC clients do). Default: none announced.
   */
  creditWindowBytes?: number;
  /** Deadline for the connection preface, ms. Default 5000. `connect` then rejects UNAVAILABLE. */
  handshakeTimeoutMs?: number;
  /** `send` returns false once this many bytes are queued (socket + batch). Default 1 MiB. */
  highWaterMarkBytes?: number;
  /** How long a clean `close()` waits for the peer to close its side, ms. Default 5000. */
  closeTimeoutMs?: number;
  /**
   * How long a received frame may stay incomplete (its header or payload partly in), ms;
   * checked at this interval, so a stalled frame is caught after 1–2× the value. The channel
   * then fails DEADLINE_EXCEEDED reason `frame-timeout` (GOAWAY to the peer). Default 30000;
   * 0 disables.
   */
  frameTimeoutMs?: number;
  /**
   * Listener: connections open at once (those still in their preface included), at most.
   * One more is answered with GOAWAY RESOURCE_EXHAUSTED (reason `too-many-connections` to
   * `onRejected`) and closed. Default: no limit.
   */
  maxConnections?: number;
  /** Mode of the socket file when listening on a path. Default 0o600. */
  socketMode?: number;
  /** Listen backlog. Default 511. */
  backlog?: number;
  /**
   * Listener side: called when an accepted connection fails its preface (a peer speaking
   * another protocol, a wrong version, a timeout); the peer got a GOAWAY and was closed.
   * Default: ignore.
   */
  onRejected?: (error: NearwireError, peer: string) => void;
}

/**
 * A {@link ChannelProvider} over stream sockets: Unix domain sockets (path or abstract name)
 * or TCP. Its `name` is `tcp` for TCP addresses and `uds` otherwise. The RPC Transport runs on
 * top of it (`createRpcTransport` in core).
 */
export function createUdsChannelProvider(options: UdsChannelOptions): ChannelProvider {
  const parsed = parseAddress(options.address);
  const channelOptions = (peer: string): SocketChannelOptions => ({
    maxFrameBytes: checkInt(
      "maxFrameBytes",
      options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
      MIN_MAX_FRAME_BYTES,
      0xffff_ffff,
    ),
    handshakeTimeoutMs: checkInt(
      "handshakeTimeoutMs",
      options.handshakeTimeoutMs ?? 5000,
      1,
      2 ** 31 - 1,
    ),
    highWaterMarkBytes: checkInt(
      "highWaterMarkBytes",
      options.highWaterMarkBytes ?? 1024 * 1024,
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    closeTimeoutMs: checkInt("closeTimeoutMs", options.closeTimeoutMs ?? 5000, 1, 2 ** 31 - 1),
    frameTimeoutMs: checkInt("frameTimeoutMs", options.frameTimeoutMs ?? 30_000, 0, 2 ** 31 - 1),
    batches: options.batches === true,
    creditWindowBytes:
      options.creditWindowBytes === undefined
        ? undefined
        : checkInt(
            "creditWindowBytes",
            options.creditWindowBytes,
            MIN_CREDIT_WINDOW_BYTES,
            SEND_WINDOW_BYTES,
          ),
    peer,
  });
  channelOptions("");
  const maxConnections =
    options.maxConnections === undefined
      ? Number.POSITIVE_INFINITY
      : checkInt("maxConnections", options.maxConnections, 1, Number.MAX_SAFE_INTEGER);
  checkPeerAuthorization(parsed, options);
  const name = parsed.kind === "tcp" ? "tcp" : "uds";
  const describe = (address: string) => (parsed.kind === "tcp" ? address : `uds:${address}`);

  return {
    name,
    async listen(onChannel: (channel: Channel) => void): Promise<ChannelListener> {
      let open = 0;
      const gate = await createPeerGate(parsed, options);
      const listener = await bindStreamListener(parsed, {
        ...(options.socketMode === undefined ? {} : { socketMode: options.socketMode }),
        ...(options.backlog === undefined ? {} : { backlog: options.backlog }),
        onConnection(accepted) {
          // Reads into a reused buffer (or a large frame's own), not a new buffer per read.
          const reader = new SocketReader({ peekBytes: PEEK_READ_BYTES });
          const adopted = adoptAccepted(accepted, reader);
          const socket = adopted ?? accepted;
          const peer =
            parsed.kind === "tcp"
              ? formatTcp(socket.remoteAddress ?? "?", socket.remotePort ?? 0)
              : describe(parsed.address);
          if (open >= maxConnections) {
            const error = new NearwireError(
              Code.ResourceExhausted,
              `${open} connections open >= maxConnections ${maxConnections}`,
              { reason: "too-many-connections" },
            );
            refuse(socket, error);
            options.onRejected?.(error, peer);
            return;
          }
          open++;
          socket.once("close", () => open--);
          const credentials = gate.peerOf(socket, peer);
          const start = (admitted: boolean): void => {
            if (!admitted) {
              const error = peerRefused(credentials);
              refuse(socket, error);
              options.onRejected?.(error, peer);
              return;
            }
            if (socket.destroyed) return;
            SocketChannel.accept(socket, {
              ...channelOptions(peer),
              peerCredentials: credentials,
              ...(adopted === undefined ? {} : { reader }),
            }).then(onChannel, (err: NearwireError) => options.onRejected?.(err, peer));
          };
          const admitted = gate.admit(credentials);
          if (typeof admitted === "boolean") start(admitted);
          else void admitted.then(start);
        },
      });
      return { address: listener.address, close: () => listener.close() };
    },
    async connect(): Promise<Channel> {
      const reader = new SocketReader({ peekBytes: PEEK_READ_BYTES });
      const socket =
        parsed.kind === "tcp"
          ? net.connect({
              host: parsed.host,
              port: parsed.port,
              noDelay: true,
              onread: reader.onread,
            })
          : net.connect({ path: netPath(parsed), onread: reader.onread });
      try {
        return await SocketChannel.connect(socket, {
          ...channelOptions(describe(parsed.address)),
          reader,
        });
      } catch (err) {
        throw nothingListens(err, parsed.address) ?? err;
      }
    },
  };
}

/** Answers a connection with GOAWAY `error` before its preface and closes it. */
function refuse(socket: net.Socket, error: NearwireError): void {
  socket.on("error", () => {});
  socket.end(encodeFrame(FrameType.GoAway, encodeGoAway(error.code, error.message)));
  socket.resume(); // discard the peer's HELLO, so that its close is seen
  setTimeout(() => socket.destroy(), GOAWAY_LINGER_MS).unref();
}

function checkInt(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new NearwireError(
      Code.InvalidArgument,
      `${name} ${value} is not an integer in ${min}..${max}`,
    );
  }
  return value;
}
