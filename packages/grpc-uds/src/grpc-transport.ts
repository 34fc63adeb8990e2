import net from "node:net";
import type {
  ClientConnection,
  HandlerErrorHook,
  PeerAuthorizationOptions,
  Server,
  Transport,
} from "@nearwire/core";
import { guardListen } from "@nearwire/core/transport-kit";
import {
  checkPeerAuthorization,
  DEFAULT_SOCKET_MODE,
  netPath,
  parseAddress,
  probeListener,
  SocketReader,
} from "@nearwire/socket";
import { GrpcClientConnection } from "./client/grpc-client-connection.js";
import { grpcTarget } from "./grpc-target.js";
import type { SessionLimits } from "./http2/http2-session.js";
import { GrpcServer } from "./server/grpc-server.js";
import { type GrpcTlsOptions, tlsConnect, tlsServerSetup } from "./tls-options.js";

/**
 * Options of {@link createGrpcTransport}. `allowUids` / `authorize` (server) run on accept,
 * before HTTP/2 starts: a refused peer is closed, so its client sees UNAVAILABLE (no status can
 * reach it).
 */
export interface GrpcTransportOptions extends PeerAuthorizationOptions {
  /**
   * Where the server listens and the client connects, in any form `@nearwire/socket`'s
   * `parseAddress` takes: `/abs/path.sock`, `unix:/abs/path.sock`, `unix:///abs/path.sock`,
   * `unix-abstract:name` or `@name` (Linux abstract socket), `host:port` or `tcp:host:port`.
   * Paths and abstract names are at most 107 bytes. With TCP port 0 the server binds a free
   * port, and `connect()` goes to the port the last server of this transport bound.
   */
  address: string;
  /**
   * Largest message either side sends or accepts, in bytes (the codec's output, without gRPC's
   * 5-byte prefix; after decompression). Over it the call fails with RESOURCE_EXHAUSTED and the
   * connection stays usable. Default 4 MiB (4194304), gRPC's default receive limit.
   */
  maxMessageBytes?: number;
  /**
   * Permissions of the socket file, which never appears with any other mode (bound in a private
   * directory, then linked into place). Default 0o600 (owner only).
   */
  socketMode?: number;
  /** How long `connect()` waits for the connection and the server's SETTINGS, ms. Default 5000. */
  connectTimeoutMs?: number;
  /**
   * Server: how long a new connection may take to complete its HTTP/2 preface and first
   * SETTINGS (and TLS handshake) before it is closed, ms. Default 10000.
   */
  handshakeTimeoutMs?: number;
  /**
   * Serve gRPC server reflection (`grpc.reflection.v1` and `v1alpha` `ServerReflection`), so
   * `grpcurl` can list every service and describe those whose codec has
   * `fileDescriptorProtos()` (the protobuf codec built from a reflection root) and the health
   * and reflection services themselves. Default false.
   */
  reflection?: boolean;
  /** TLS or mutual TLS (ALPN `h2`); see {@link GrpcTlsOptions}. Default: none (plaintext). */
  tls?: GrpcTlsOptions;
  /**
   * Server: streams one client connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS);
   * a client queues calls beyond its server's limit. Default 1000.
   */
  maxConcurrentStreams?: number;
  /** Each side's HTTP/2 stream receive window, bytes. Default 1 MiB. */
  streamWindowBytes?: number;
  /** Largest request or response header list accepted, bytes (RFC 9113 size). Default 64 KiB. */
  maxHeaderListBytes?: number;
  /**
   * Send an HTTP/2 PING after this long without a frame from the peer, and close the connection
   * when it is not answered within `keepaliveTimeoutMs` (default 20000), ms. Default 0 (off).
   */
  keepaliveMs?: number;
  keepaliveTimeoutMs?: number;
  /** Client: compress request messages with gzip (`grpc-encoding: gzip`). Default identity. */
  compression?: "identity" | "gzip";
  /**
   * Server: told of each error a handler throws that is not a NearwireError, and decides what
   * the client gets; as `RpcOptions.onHandlerError` of `@nearwire/core` (default: one
   * `console.error` line; the client gets UNKNOWN with the error's message).
   */
  onHandlerError?: HandlerErrorHook;
}

/** Default of {@link GrpcTransportOptions.maxMessageBytes}: 4 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** A streaming call waits while more than this is queued for the socket, bytes. */
const HIGH_WATER_MARK_BYTES = 256 * 1024;

/**
 * A nearwire Transport that serves and calls services as real gRPC methods
 * (`/package.Service/Method`) over HTTP/2 on a Unix socket or TCP, with nearwire's own HTTP/2
 * engine. The codec bound to each service is gRPC's serializer, so a stock gRPC client or
 * server in any language is the other side of a service that uses the protobuf codec.
 *
 * @example
 * ```ts
 * import { defineService, jsonCodec, messageType, unary } from "@nearwire/core";
 * import { createGrpcTransport } from "@nearwire/grpc-uds";
 *
 * const Greeter = defineService("example.Greeter", {
 *   say: unary(messageType<{ name: string }>("Hello"), messageType<{ text: string }>("Reply")),
 * });
 * const transport = createGrpcTransport({ address: "unix:/tmp/greeter.sock" });
 *
 * // A gRPC server: grpcurl or any gRPC client can call /example.Greeter/say ...
 * const server = transport.createServer();
 * const say = ({ name }: { name: string }) => ({ text: `hi ${name}` });
 * server.addService(Greeter, { say }, { codec: jsonCodec });
 * await server.listen();
 *
 * // ... and so can nearwire's own gRPC client.
 * await using connection = await transport.connect();
 * const greeter = connection.client(Greeter, { codec: jsonCodec });
 * console.log((await greeter.say({ name: "Ada" }, { timeoutMs: 1000 })).text); // "hi Ada"
 * ```
 */
export function createGrpcTransport(options: GrpcTransportOptions): Transport {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const socketMode = options.socketMode ?? DEFAULT_SOCKET_MODE;
  if (options.allowUids !== undefined || options.authorize !== undefined) {
    checkPeerAuthorization(parseAddress(options.address), options);
  }
  const peers: PeerAuthorizationOptions = {
    ...(options.allowUids === undefined ? {} : { allowUids: options.allowUids }),
    ...(options.authorize === undefined ? {} : { authorize: options.authorize }),
  };
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const limits: SessionLimits = {
    maxConcurrentStreams: options.maxConcurrentStreams ?? 1000,
    streamWindowBytes: options.streamWindowBytes ?? 1024 * 1024,
    connectionWindowBytes: 16 * 1024 * 1024,
    maxFrameBytes: 64 * 1024,
    maxHeaderListBytes: options.maxHeaderListBytes ?? 64 * 1024,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
    keepaliveMs: options.keepaliveMs ?? 0,
    keepaliveTimeoutMs: options.keepaliveTimeoutMs ?? 20_000,
  };
  const tls = options.tls;
  let lastBound: string | undefined;
  return {
    name: "grpc-uds",
    createServer(): Server {
      return guardListen(
        new GrpcServer({
          address: options.address,
          socketMode,
          maxMessageBytes,
          limits,
          highWaterMarkBytes: HIGH_WATER_MARK_BYTES,
          reflection: options.reflection === true,
          onHandlerError: options.onHandlerError,
          peers,
          tls: tls === undefined ? undefined : tlsServerSetup(tls, limits.handshakeTimeoutMs),
          onBound: (address) => {
            lastBound = address;
          },
        }),
      );
    },
    async connect(): Promise<ClientConnection> {
      let address = parseAddress(options.address);
      if (address.kind === "tcp" && address.port === 0 && lastBound !== undefined) {
        address = parseAddress(lastBound);
      }
      const where =
        address.kind === "tcp"
          ? { host: address.host, port: address.port }
          : { path: netPath(address) };
      const probed = address;
      const host = address.kind === "tcp" ? address.host : "localhost";
      return GrpcClientConnection.open({
        connectSocket: () =>
          tls === undefined
            ? plainConnect(where)
            : tlsConnect(tls, where, host).then((socket) => ({ socket })),
        limits,
        maxMessageBytes,
        highWaterMarkBytes: HIGH_WATER_MARK_BYTES,
        scheme: tls === undefined ? "http" : "https",
        authority: address.kind === "tcp" ? grpcTarget(address) : "localhost",
        sendEncoding: options.compression ?? "identity",
        connectTimeoutMs,
        target: address.address,
        probe: () => probeListener(where, probed.address),
      });
    },
  };
}

/** A plain socket that reads through a `SocketReader` (one reused buffer, not one per read). */
function plainConnect(
  where: { host: string; port: number } | { path: string },
): Promise<{ socket: net.Socket; reader: SocketReader }> {
  return new Promise((resolve, reject) => {
    const reader = new SocketReader();
    const socket = net.connect({ ...where, onread: reader.onread });
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.off("error", reject);
      socket.setNoDelay(true);
      resolve({ socket, reader });
    });
  });
}
