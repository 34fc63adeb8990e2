/**
 * Who is on the other end of a server connection, as far as the transport can tell. One object
 * per connection, shared by every call on it (`HandlerContext.peer`).
 *
 * `uid`, `gid` and `pid` are the kernel's `SO_PEERCRED` of a Unix socket, read when the
 * connection was accepted (what the peer process was when it called `connect`); they are
 * absent for TCP, and for Unix sockets when the optional `@nearwire/peercred` addon is not built
 * and no server option needed them.
 */
export interface Peer {
  /** Description of the peer for logs: `uds:/run/app.sock`, `tcp:127.0.0.1:53122`, … */
  readonly address: string;
  /** User id of the peer process (Unix sockets). */
  readonly uid?: number;
  /** Group id of the peer process (Unix sockets). */
  readonly gid?: number;
  /** Process id of the peer (Unix sockets; as seen in this process's pid namespace). */
  readonly pid?: number;
  /**
   * TLS (grpc-uds with client certificates): the subject of the peer's verified certificate,
   * `CN=alice, O=acme`. Absent without TLS or when the peer presented no certificate.
   */
  readonly subject?: string;
}

/**
 * Server options that decide which peers may connect, checked on accept before anything is
 * allocated for the connection. A refused peer is answered PERMISSION_DENIED and closed; the
 * server keeps serving the others.
 */
export interface PeerAuthorizationOptions {
  /**
   * Only peers running as one of these user ids may connect (Unix sockets only: on a TCP
   * address this is INVALID_ARGUMENT at server creation). Needs `@nearwire/peercred`: without
   * it `listen()` rejects FAILED_PRECONDITION reason `not-built` rather than not checking.
   */
  allowUids?: readonly number[];
  /**
   * Called once per accepted connection (after `allowUids`, if both are set); a peer is
   * served only when it returns (or resolves to) true. A throw or rejection refuses the peer.
   * On TCP it sees only the address.
   */
  authorize?(peer: Peer): boolean | Promise<boolean>;
}
