/**
 * shm-ring's control-socket protocol, all of it (PROTOCOL.md section 6): the handshake frames,
 * then the single control bytes (doorbells, clean close, GOAWAY) and the error bodies both carry.
 */
import type { Socket } from "node:net";
import { Code, isCode, NearwireError } from "@nearwire/core";
import { isErrorReason } from "@nearwire/core/transport-kit";
import { LAYOUT_VERSION } from "@nearwire/ring";
import { SNIFF_BYTES, type SocketReader, sniffForeignProtocol } from "@nearwire/socket";

/*
 * Handshake on the control socket (PROTOCOL.md section 6): frames of
 * `u32 big-endian length | UTF-8 JSON`, at most 4096 bytes, three of them:
 *
 *   client -> server  {"magic":"nearwire-shm","layout":1,"pid":P,"maxFrameBytes":Fc}
 *   server -> client  {"magic":"nearwire-shm","layout":1,"pid":S,"fd":F,"ringBytes":C,
 *                      "segmentBytes":B,"maxPayloadBytes":M,"maxFrameBytes":F,
 *                      "nonce":"16 hex digits"}
 *
 * maxFrameBytes is optional in both (absent: that side does not fragment); the server's is the
 * agreed frame limit, max(M, min(its own, Fc or M)).
 *   client -> server  {"ready":true}
 *
 * Either side may instead send {"error":{"code":N,"reason":"...","message":"..."}} and close.
 * After the third frame the socket carries single control bytes:
 *
 *   0x44 'D'  doorbell: your receive ring has a record (sent only if you set "parked")
 *   0x53 'S'  doorbell: your send ring has space (sent only if you set "waiting")
 *   0x43 'C'  clean close: every frame is in the ring; drain it, then close
 *   0x47 'G'  u16 big-endian length | UTF-8 JSON {"code":N,"message":"...","reason":"..."}:
 *             closing with an error
 *
 * The socket's end (EOF or reset) without 'C' or 'G' means the peer died: UNAVAILABLE.
 */

/** Control byte `D`: the receiver's ring has a record. */
export const BELL_DATA = 0x44;
/** Control byte `S`: the sender's ring has space. */
export const BELL_SPACE = 0x53;
/** Control byte `C`: clean close. */
export const CLOSE = 0x43;
/** Control byte `G`: closing with an error (a length-prefixed JSON body follows). */
export const GOAWAY = 0x47;
/** The one-byte control messages, ready to write. */
export const BELL_DATA_BUF = Buffer.of(BELL_DATA);
export const BELL_SPACE_BUF = Buffer.of(BELL_SPACE);
export const CLOSE_BUF = Buffer.of(CLOSE);

/** Magic string of the handshake. */
export const HANDSHAKE_MAGIC = "nearwire-shm";
/** Largest handshake frame body, bytes. */
export const MAX_HANDSHAKE_BYTES = 4096;

/** A handshake error frame body. */
export interface HandshakeError {
  error: { code: number; reason?: string; message: string };
}

/** Encodes one handshake frame. */
export function encodeHandshake(body: object): Buffer {
  const json = Buffer.from(JSON.stringify(body));
  const out = Buffer.allocUnsafe(4 + json.length);
  out.writeUInt32BE(json.length, 0);
  json.copy(out, 4);
  return out;
}

/**
 * Checks the first handshake frame `from` the other side sent (its HELLO or the server's offer):
 * INTERNAL `bad-preface` for another magic, FAILED_PRECONDITION `layout-mismatch` for another
 * segment layout version.
 */
export function checkHandshakeHeader(
  frame: Record<string, unknown>,
  from: "client" | "server",
): void {
  if (frame.magic !== HANDSHAKE_MAGIC) {
    throw new NearwireError(Code.Internal, `bad handshake magic ${JSON.stringify(frame.magic)}`, {
      reason: "bad-preface",
    });
  }
  if (frame.layout !== LAYOUT_VERSION) {
    const self = from === "client" ? "server" : "client";
    throw new NearwireError(
      Code.FailedPrecondition,
      `${from} layout version ${String(frame.layout)} != ${self} ${LAYOUT_VERSION}`,
      { reason: "layout-mismatch" },
    );
  }
}

/** The `{code, message, reason?}` body of an error frame or a `G` control message. */
function errorBody(err: NearwireError): HandshakeError["error"] {
  const body: HandshakeError["error"] = { code: err.code, message: err.message };
  if (err.reason !== undefined) body.reason = err.reason;
  return body;
}

/** The error frame for `err`. */
export function errorFrame(err: NearwireError): Buffer {
  return encodeHandshake({ error: errorBody(err) });
}

/**
 * The `G` control message for `err`: how a channel closes with an error, and how a server fails
 * a connection whose client already sent `ready` and so reads control bytes, no longer
 * handshake frames. A message too long for the u16 length is shortened (the JSON stays whole).
 */
export function goAwayFrame(err: NearwireError): Buffer {
  const body = errorBody(err);
  let json = Buffer.from(JSON.stringify(body));
  while (json.length > 0xffff) {
    body.message = `${body.message.slice(0, body.message.length >> 1)}…`;
    json = Buffer.from(JSON.stringify(body));
  }
  const out = Buffer.allocUnsafe(3 + json.length);
  out[0] = GOAWAY;
  out.writeUInt16BE(json.length, 1);
  json.copy(out, 3);
  return out;
}

/** The error a `G` control message's JSON body says (INTERNAL `protocol-violation` if malformed). */
export function goAwayError(json: Uint8Array): NearwireError {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString("utf8"));
  } catch {
    return new NearwireError(Code.Internal, "malformed GOAWAY on the shm-ring control socket", {
      reason: "protocol-violation",
    });
  }
  return peerError(body, "peer closed the channel with an error");
}

/**
 * What a control socket reads, handed to one handler at a time (the handshake's, then the
 * channel's): through the `SocketReader` the socket was made with, when it has one, in the
 * thread's shared read buffer; else through its `data` events, each a new 64 KiB buffer Node
 * allocates for the read (cut to size after it). A doorbell is one byte, and a bulk transfer
 * rings a few thousand per GiB. The bytes handed on are valid only during the call.
 */
export class ControlReads {
  /** Where reads go now; without one they are dropped. */
  handler: ((bytes: Buffer) => void) | undefined;

  constructor(socket: Socket, reader: SocketReader | undefined) {
    if (reader === undefined) {
      socket.on("data", (bytes: Buffer) => this.handler?.(bytes));
      return;
    }
    reader.attach({
      readTarget: () => undefined,
      readSmall: () => false,
      onRead: (buf, n) => {
        this.handler?.(Buffer.from(buf.buffer, buf.byteOffset, n));
        return true;
      },
    });
  }
}

/** Reads handshake frames from a socket until `finish` hands the rest to the channel. */
export class HandshakeReader {
  /** The socket's reads, for the channel once the handshake is done. */
  readonly reads: ControlReads;
  private buf: Buffer = Buffer.alloc(0);
  private waiter:
    | { resolve(v: Record<string, unknown>): void; reject(e: NearwireError): void }
    | undefined;
  private failure: NearwireError | undefined;
  private readonly timer: NodeJS.Timeout;
  /** Client side: the server's address, until its first bytes have been judged. */
  private sniffing: string | undefined;

  /**
   * `server`: on a client, the address it connected to; the server's first bytes are then
   * checked for another protocol's (an HTTP/2 server's SETTINGS: a grpc-uds server), which
   * fails FAILED_PRECONDITION `transport-mismatch` naming the package to use (PROTOCOL.md §6.1).
   */
  constructor(
    private readonly socket: Socket,
    timeoutMs: number,
    server?: string,
    /** The reader `socket` was made with (`onread`, `adoptAccepted`), if any. */
    reader?: SocketReader,
  ) {
    this.sniffing = server;
    this.reads = new ControlReads(socket, reader);
    this.reads.handler = this.onData;
    socket.on("close", this.onClose);
    socket.on("error", this.onError);
    this.timer = setTimeout(
      () =>
        this.fail(
          new NearwireError(Code.DeadlineExceeded, `shm-ring handshake took over ${timeoutMs} ms`),
        ),
      timeoutMs,
    );
  }

  /** The next frame's JSON body; rejects on close, timeout, bad frames and error frames. */
  next(): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.waiter = { resolve, reject };
      this.parse();
    });
  }

  /** Fails the handshake with `err` now: a pending or later `next()` rejects with it. */
  abort(err: NearwireError): void {
    this.fail(err);
  }

  /** Stops reading; returns bytes that arrived after the last frame. */
  finish(): Buffer {
    clearTimeout(this.timer);
    this.reads.handler = undefined;
    this.socket.off("close", this.onClose);
    this.socket.off("error", this.onError);
    return this.buf;
  }

  private readonly onData = (chunk: Buffer): void => {
    // A copy: `chunk` is valid only during this call (ControlReads).
    this.buf = this.buf.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buf, chunk]);
    this.parse();
  };

  private readonly onClose = (): void => {
    this.fail(
      new NearwireError(Code.Unavailable, "control socket closed during the shm-ring handshake", {
        reason: "peer-closed",
      }),
    );
  };

  private readonly onError = (err: Error): void => {
    this.fail(NearwireError.from(err, Code.Unavailable));
  };

  private fail(err: NearwireError): void {
    if (this.failure) return;
    this.failure = err;
    clearTimeout(this.timer);
    const w = this.waiter;
    this.waiter = undefined;
    w?.reject(err);
  }

  private parse(): void {
    if (!this.waiter || this.buf.length < 4) return;
    if (this.sniffing !== undefined) {
      // Every real handshake frame is longer than SNIFF_BYTES (a length and a JSON object).
      if (this.buf.length < SNIFF_BYTES) return;
      const foreign = sniffForeignProtocol(this.buf, "client");
      if (foreign !== undefined && foreign.package !== "@nearwire/shm-ring") {
        this.fail(
          new NearwireError(
            Code.FailedPrecondition,
            `the server at ${this.sniffing} speaks ${foreign.name}, not the shm-ring handshake${foreign.package === undefined ? "" : `: connect with ${foreign.package}`}`,
            { reason: "transport-mismatch" },
          ),
        );
        return;
      }
      this.sniffing = undefined;
    }
    const n = this.buf.readUInt32BE(0);
    if (n > MAX_HANDSHAKE_BYTES) {
      this.fail(
        new NearwireError(Code.Internal, `handshake frame ${n} B > ${MAX_HANDSHAKE_BYTES} B`, {
          reason: "bad-preface",
        }),
      );
      return;
    }
    if (this.buf.length < 4 + n) return;
    const body = this.buf.subarray(4, 4 + n);
    this.buf = this.buf.subarray(4 + n);
    let value: unknown;
    try {
      value = JSON.parse(body.toString("utf8"));
    } catch {
      this.fail(
        new NearwireError(Code.Internal, "handshake frame is not JSON", { reason: "bad-preface" }),
      );
      return;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      this.fail(
        new NearwireError(Code.Internal, "handshake frame is not an object", {
          reason: "bad-preface",
        }),
      );
      return;
    }
    const obj = value as Record<string, unknown>;
    if ("error" in obj) {
      this.fail(peerError(obj.error));
      return;
    }
    const w = this.waiter;
    this.waiter = undefined;
    w.resolve(obj);
  }
}

/**
 * Turns an error body (of a handshake error frame or a `G` message) into a NearwireError: an
 * unknown code becomes UNKNOWN, a reason outside core's closed set is dropped.
 */
export function peerError(
  e: unknown,
  fallbackMessage = "peer refused the shm-ring handshake",
): NearwireError {
  const o = (e ?? {}) as { code?: unknown; reason?: unknown; message?: unknown };
  const code = typeof o.code === "number" && isCode(o.code) ? o.code : Code.Unknown;
  const message = typeof o.message === "string" ? o.message : fallbackMessage;
  return isErrorReason(o.reason)
    ? new NearwireError(code, message, { reason: o.reason })
    : new NearwireError(code, message);
}
