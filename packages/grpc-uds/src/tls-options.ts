/** TLS for grpc-uds: the options, and how each side wraps its socket (ALPN `h2`). */

import type net from "node:net";
import tls from "node:tls";
import type { Peer } from "@nearwire/core";

/**
 * TLS (and mutual TLS) for a grpc-uds server or client, for services that leave the machine.
 * PEM strings or buffers. A server needs `key` and `cert`; with `ca` it also asks every client
 * for a certificate signed by it (mTLS) and refuses the handshake without one. A client
 * verifies the server against `ca` (default: Node's root store) and presents `key`/`cert` when
 * given.
 */
export interface GrpcTlsOptions {
  /** Private key of this side's certificate (PEM). Server: required. */
  key?: string | Buffer;
  /** Certificate chain of this side (PEM). Server: required. */
  cert?: string | Buffer;
  /** Certificates of the CAs that sign the peer's certificate (PEM). */
  ca?: string | Buffer | (string | Buffer)[];
  /** Server: require a client certificate signed by `ca`. Default: true when `ca` is set. */
  requireClientCert?: boolean;
  /** Client: the name the server certificate must carry. Default: the address's host. */
  serverName?: string;
}

/** How a server turns an accepted socket into a TLS one. */
export interface TlsServerSetup {
  wrap(socket: net.Socket, peer: Peer, ready: (secured: tls.TLSSocket, peer: Peer) => void): void;
}

/**
 * The server side: a `tls.Server` that never listens — each admitted socket is handed to it,
 * because Node verifies a client certificate (and sets `authorized`) only on a TLS server's
 * sockets. ALPN `h2` only; a failed or slow handshake (past `handshakeTimeoutMs`) closes the
 * socket.
 */
export function tlsServerSetup(
  options: GrpcTlsOptions,
  handshakeTimeoutMs: number,
): TlsServerSetup {
  const requestCert = options.requireClientCert ?? options.ca !== undefined;
  const owner = tls.createServer({
    ...(options.key === undefined ? {} : { key: options.key }),
    ...(options.cert === undefined ? {} : { cert: options.cert }),
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    requestCert,
    rejectUnauthorized: requestCert,
    ALPNProtocols: ["h2"],
    handshakeTimeout: handshakeTimeoutMs,
  });
  /** Admitted sockets waiting for their handshake, by the plain socket under the TLS one. */
  const waiting = new WeakMap<object, (secured: tls.TLSSocket) => void>();
  owner.on("secureConnection", (secured: tls.TLSSocket) => {
    // `_parent`: the socket Node's TLS server wrapped (the one handed to it below).
    const parent = (secured as unknown as { _parent?: object })._parent;
    const done = parent === undefined ? undefined : waiting.get(parent);
    if (done === undefined) secured.destroy();
    else done(secured);
  });
  owner.on("tlsClientError", (_err: Error, secured: tls.TLSSocket) => secured.destroy());
  return {
    wrap(socket, peer, ready) {
      waiting.set(socket, (secured) => {
        waiting.delete(socket);
        const subject = certificateSubject(secured);
        ready(secured, subject === undefined ? peer : withSubject(peer, subject));
      });
      owner.emit("connection", socket);
    },
  };
}

/** The verified peer certificate's subject as `CN=alice, O=acme`, or undefined. */
export function certificateSubject(socket: tls.TLSSocket): string | undefined {
  if (!socket.authorized) return undefined;
  const cert = socket.getPeerCertificate();
  if (cert === null || cert.subject === undefined) return undefined;
  return Object.entries(cert.subject)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join("+") : v}`)
    .join(", ");
}

/** Client side: connects with TLS over `connect` (host/port or path), ALPN `h2`. */
export function tlsConnect(
  options: GrpcTlsOptions,
  where: { host: string; port: number } | { path: string },
  defaultServerName: string,
): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      ...where,
      ...(options.key === undefined ? {} : { key: options.key }),
      ...(options.cert === undefined ? {} : { cert: options.cert }),
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      servername: options.serverName ?? defaultServerName,
      ALPNProtocols: ["h2"],
    });
    socket.once("error", reject);
    socket.once("secureConnect", () => {
      socket.off("error", reject);
      if (socket.alpnProtocol !== "h2") {
        socket.destroy();
        reject(
          new Error(
            `the server did not agree to HTTP/2 over TLS (ALPN ${socket.alpnProtocol || "none"})`,
          ),
        );
        return;
      }
      resolve(socket);
    });
  });
}

function withSubject(peer: Peer, subject: string): Peer {
  const out: { -readonly [K in keyof Peer]: Peer[K] } = { address: peer.address, subject };
  if (peer.uid !== undefined) out.uid = peer.uid;
  if (peer.gid !== undefined) out.gid = peer.gid;
  if (peer.pid !== undefined) out.pid = peer.pid;
  return out;
}
