/** Peer checks on accept (allowUids, authorize) against SO_PEERCRED. */
import type net from "node:net";
import { Code, NearwireError, type Peer, type PeerAuthorizationOptions } from "@nearwire/core";
import type { SocketAddress } from "./socket-address.js";

/** Reads `SO_PEERCRED` of a connected Unix socket fd (the optional `@nearwire/peercred`). */
type ReadCredentials = (fd: number) => { uid: number; gid: number; pid: number };

/**
 * Who may connect to a listener, decided on accept: `peerOf` describes an accepted socket (with
 * its `SO_PEERCRED` on Unix sockets when `@nearwire/peercred` is built), `admit` applies
 * `allowUids` then `authorize`.
 */
export interface PeerGate {
  /** True when `allowUids` or `authorize` was given: `admit` may refuse. */
  readonly checks: boolean;
  /** The peer of an accepted socket; `address` is the description used for logs. */
  peerOf(socket: net.Socket, address: string): Peer;
  /**
   * True when the peer may be served. Synchronous without `authorize` (or when it answers
   * synchronously); a throwing or rejecting `authorize`, and a Unix peer whose credentials
   * could not be read while checks are on, are refused.
   */
  admit(peer: Peer): boolean | Promise<boolean>;
}

/**
 * Checks the peer options when a server is created: INVALID_ARGUMENT for `allowUids` on a TCP
 * address (TCP peers have no credentials), for uids that are not integers in 0..2^32-1, and for
 * an `authorize` that is not a function.
 */
export function checkPeerAuthorization(
  address: SocketAddress,
  options: PeerAuthorizationOptions,
): void {
  const { allowUids, authorize } = options;
  if (allowUids !== undefined) {
    if (address.kind === "tcp") {
      throw new NearwireError(
        Code.InvalidArgument,
        `allowUids needs a Unix socket address: a TCP peer (${address.address}) has no uid; use authorize`,
      );
    }
    if (
      !Array.isArray(allowUids) ||
      !allowUids.every((uid) => Number.isInteger(uid) && uid >= 0 && uid <= 0xffff_ffff)
    ) {
      throw new NearwireError(Code.InvalidArgument, "allowUids must be integers in 0..2^32-1");
    }
  }
  if (authorize !== undefined && typeof authorize !== "function") {
    throw new NearwireError(Code.InvalidArgument, "authorize must be a function");
  }
}

/**
 * Makes the gate of one listener (call at `listen()`). On a Unix address it loads
 * `@nearwire/peercred`; when that addon is not built, `allowUids`/`authorize` reject
 * FAILED_PRECONDITION reason `not-built` (a server never runs unchecked), and without them peers
 * are described by address only.
 */
export async function createPeerGate(
  address: SocketAddress,
  options: PeerAuthorizationOptions,
): Promise<PeerGate> {
  checkPeerAuthorization(address, options);
  const { authorize } = options;
  const allowUids = options.allowUids === undefined ? undefined : new Set(options.allowUids);
  const checks = allowUids !== undefined || authorize !== undefined;
  let read: ReadCredentials | undefined;
  if (address.kind !== "tcp") {
    try {
      read = (await import("@nearwire/peercred")).peerCredentials;
    } catch (cause) {
      if (checks) {
        throw new NearwireError(
          Code.FailedPrecondition,
          "allowUids/authorize on a Unix socket need the @nearwire/peercred addon (Linux): npm install @nearwire/peercred, or npm rebuild @nearwire/peercred when it is installed but not built",
          { reason: "not-built", cause },
        );
      }
    }
  }
  return {
    checks,
    peerOf(socket, peerAddress) {
      if (read === undefined) return { address: peerAddress };
      const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
      if (typeof fd !== "number" || fd < 0) return { address: peerAddress };
      try {
        const { uid, gid, pid } = read(fd);
        return { address: peerAddress, uid, gid, pid };
      } catch {
        return { address: peerAddress };
      }
    },
    admit(peer) {
      if (!checks) return true;
      if (address.kind !== "tcp" && peer.uid === undefined) return false;
      if (allowUids !== undefined && !allowUids.has(peer.uid as number)) return false;
      if (authorize === undefined) return true;
      try {
        const answer = authorize(peer);
        if (typeof answer === "boolean") return answer;
        return Promise.resolve(answer).then(
          (ok) => ok === true,
          () => false,
        );
      } catch {
        return false;
      }
    },
  };
}

/** PERMISSION_DENIED for a refused peer (what the transports send it before closing). */
export function peerRefused(peer: Peer): NearwireError {
  return new NearwireError(Code.PermissionDenied, `peer ${describePeer(peer)} is not authorized`);
}

function describePeer(peer: Peer): string {
  return peer.uid === undefined
    ? peer.address
    : `${peer.address} (uid ${peer.uid}, pid ${peer.pid ?? "?"})`;
}
