import type { ChannelOptions } from "@grpc/grpc-js";
import type { ClientConnection, PeerAuthorizationOptions, Server, Transport } from "@nearwire/core";
import { guardListen } from "@nearwire/core/transport-kit";
import {
  checkPeerAuthorization,
  DEFAULT_SOCKET_MODE,
  netPath,
  parseAddress,
  probeListener,
} from "@nearwire/socket";
import { GrpcClientConnection } from "./grpc-client-connection.js";
import { GrpcServer } from "./grpc-server.js";
import { grpcTarget } from "./grpc-target.js";

/**
 * Options of {@link createGrpcTransport}. `allowUids` / `authorize` (server) run on accept,
 * before the connection is handed to grpc-js: a refused peer is closed before HTTP/2 starts, so
 * its client sees UNAVAILABLE (no status can reach it), and handlers' `ctx.peer` has no uid.
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
   * 5-byte prefix): grpc-js `grpc.max_send_message_length` and `grpc.max_receive_message_length`
   * on both server and client. Over it the call fails with RESOURCE_EXHAUSTED and the
   * connection stays usable. Default 4 MiB (4194304), gRPC's default receive limit.
   */
  maxMessageBytes?: number;
  /**
   * Permissions of the socket file, which never appears with any other mode (bound in a private
   * directory, then linked into place). Default 0o600 (owner only).
   */
  socketMode?: number;
  /** How long `connect()` waits for the HTTP/2 connection to be ready, in ms. Default 5000. */
  connectTimeoutMs?: number;
  /**
   * Extra grpc-js channel options for server and client (keepalive, flow-control windows, ...);
   * they override the ones this transport sets.
   */
  grpcOptions?: ChannelOptions;
  /**
   * Serve gRPC server reflection (`grpc.reflection.v1` and `v1alpha` `ServerReflection`, through
   * `@grpc/reflection`) for the services whose codec has `fileDescriptorProtos()` (the protobuf
   * codec built from a reflection root), so `grpcurl -plaintext -unix` can list and describe
   * them. Default false.
   */
  reflection?: boolean;
}

/** Default of {@link GrpcTransportOptions.maxMessageBytes}: 4 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * A nearwire Transport that serves and calls services as real gRPC methods
 * (`/package.Service/Method`) with `@grpc/grpc-js`, over a Unix socket or TCP. The codec bound
 * to each service is gRPC's serializer, so a stock gRPC client in any language can call a
 * service that uses the protobuf codec.
 */
export function createGrpcTransport(options: GrpcTransportOptions): Transport {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const common: ChannelOptions = {
    "grpc.max_send_message_length": maxMessageBytes,
    "grpc.max_receive_message_length": maxMessageBytes,
  };
  const serverOptions: ChannelOptions = { ...common, ...options.grpcOptions };
  const clientOptions: ChannelOptions = {
    ...common,
    // One HTTP/2 connection per ClientConnection, as on uds, instead of grpc-js's shared pool.
    "grpc.use_local_subchannel_pool": 1,
    // Never go idle on its own: leaving READY means the connection was lost.
    "grpc.client_idle_timeout_ms": 2 ** 31 - 1,
    ...options.grpcOptions,
  };
  const socketMode = options.socketMode ?? DEFAULT_SOCKET_MODE;
  if (options.allowUids !== undefined || options.authorize !== undefined) {
    checkPeerAuthorization(parseAddress(options.address), options);
  }
  const peers: PeerAuthorizationOptions = {
    ...(options.allowUids === undefined ? {} : { allowUids: options.allowUids }),
    ...(options.authorize === undefined ? {} : { authorize: options.authorize }),
  };
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  let lastBound: string | undefined;
  return {
    name: "grpc-uds",
    createServer(): Server {
      return guardListen(
        new GrpcServer(
          options.address,
          socketMode,
          serverOptions,
          (address) => {
            lastBound = address;
          },
          options.reflection === true,
          peers,
        ),
      );
    },
    async connect(): Promise<ClientConnection> {
      let address = parseAddress(options.address);
      if (address.kind === "tcp" && address.port === 0 && lastBound !== undefined) {
        address = parseAddress(lastBound);
      }
      const probed = address;
      return GrpcClientConnection.open(grpcTarget(address), clientOptions, connectTimeoutMs, () =>
        probeListener(
          probed.kind === "tcp"
            ? { host: probed.host, port: probed.port }
            : { path: netPath(probed) },
          probed.address,
        ),
      );
    },
  };
}
