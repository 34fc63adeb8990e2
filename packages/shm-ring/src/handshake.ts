import type { Socket } from "node:net";
import type { ErrorReason } from "@nearwire/core";
import { Code, isCode, NearwireError } from "@nearwire/core";

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
 * After the third frame the socket carries single control bytes (see shm-ring-channel.ts).
 */

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

/** The error frame for `err`. */
export function errorFrame(err: NearwireError): Buffer {
  const error: HandshakeError["error"] = { code: err.code, message: err.message };
  if (err.reason !== undefined) error.reason = err.reason;
  return encodeHandshake({ error });
}

/**
 * The `G` control frame (see shm-ring-channel.ts) for `err`: how a server fails a connection
 * whose client already sent `ready` and so reads control bytes, no longer handshake frames.
 */
export function goAwayFrame(err: NearwireError): Buffer {
  const body: HandshakeError["error"] = { code: err.code, message: err.message };
  if (err.reason !== undefined) body.reason = err.reason;
  const json = Buffer.from(JSON.stringify(body)).subarray(0, 0xffff);
  const out = Buffer.allocUnsafe(3 + json.length);
  out[0] = 0x47;
  out.writeUInt16BE(json.length, 1);
  json.copy(out, 3);
  return out;
}

/** Reads handshake frames from a socket until `finish` hands the rest to the channel. */
export class HandshakeReader {
  private buf: Buffer = Buffer.alloc(0);
  private waiter:
    | { resolve(v: Record<string, unknown>): void; reject(e: NearwireError): void }
    | undefined;
  private failure: NearwireError | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly socket: Socket,
    timeoutMs: number,
  ) {
    socket.on("data", this.onData);
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
    this.socket.off("data", this.onData);
    this.socket.off("close", this.onClose);
    this.socket.off("error", this.onError);
    return this.buf;
  }

  private readonly onData = (chunk: Buffer): void => {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
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

const REASONS: ReadonlySet<string> = new Set<ErrorReason>([
  "layout-mismatch",
  "version-mismatch",
  "bad-preface",
  "not-built",
  "peer-closed",
  "protocol-violation",
  "transport-mismatch",
]);

/** Turns an error frame body into a NearwireError (unknown codes become UNKNOWN). */
export function peerError(e: unknown): NearwireError {
  const o = (e ?? {}) as { code?: unknown; reason?: unknown; message?: unknown };
  const code = typeof o.code === "number" && isCode(o.code) ? o.code : Code.Unknown;
  const message = typeof o.message === "string" ? o.message : "peer refused the shm-ring handshake";
  if (typeof o.reason === "string" && REASONS.has(o.reason)) {
    return new NearwireError(code, message, { reason: o.reason as ErrorReason });
  }
  return new NearwireError(code, message);
}
