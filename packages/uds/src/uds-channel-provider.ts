import net from "node:net";
import {
  type Channel,
  type ChannelListener,
  type ChannelProvider,
  Code,
  NearwireError,
} from "@nearwire/core";
import { DEFAULT_MAX_FRAME_BYTES, MIN_MAX_FRAME_BYTES } from "@nearwire/frame";
import { bindStreamListener, formatTcp, netPath, parseAddress } from "@nearwire/socket";
import { SocketChannel, type SocketChannelOptions } from "./socket-channel.js";

/** Options of {@link createUdsChannelProvider}. */
export interface UdsChannelOptions {
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
  /** Deadline for the connection preface, ms. Default 5000. `connect` then rejects UNAVAILABLE. */
  handshakeTimeoutMs?: number;
  /** `send` returns false once this many bytes are queued (socket + batch). Default 1 MiB. */
  highWaterMarkBytes?: number;
  /** How long a clean `close()` waits for the peer to close its side, ms. Default 5000. */
  closeTimeoutMs?: number;
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
    peer,
  });
  channelOptions("");
  const name = parsed.kind === "tcp" ? "tcp" : "uds";
  const describe = (address: string) => (parsed.kind === "tcp" ? address : `uds:${address}`);

  return {
    name,
    async listen(onChannel: (channel: Channel) => void): Promise<ChannelListener> {
      const listener = await bindStreamListener(parsed, {
        ...(options.socketMode === undefined ? {} : { socketMode: options.socketMode }),
        ...(options.backlog === undefined ? {} : { backlog: options.backlog }),
        onConnection(socket) {
          const peer =
            parsed.kind === "tcp"
              ? formatTcp(socket.remoteAddress ?? "?", socket.remotePort ?? 0)
              : describe(parsed.address);
          SocketChannel.accept(socket, channelOptions(peer)).then(onChannel, (err: NearwireError) =>
            options.onRejected?.(err, peer),
          );
        },
      });
      return { address: listener.address, close: () => listener.close() };
    },
    async connect(): Promise<Channel> {
      const socket =
        parsed.kind === "tcp"
          ? net.connect({ host: parsed.host, port: parsed.port, noDelay: true })
          : net.connect({ path: netPath(parsed) });
      return SocketChannel.connect(socket, channelOptions(describe(parsed.address)));
    },
  };
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
