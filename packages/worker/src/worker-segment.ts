import { randomBytes } from "node:crypto";
import type { ErrorReason } from "@nearwire/core";
import { Code, isCode, NearwireError } from "@nearwire/core";
import { checkRingBytes, segmentBytesFor, writeHeader } from "@nearwire/ring";

/*
 * A worker segment is a PROTOCOL.md section 6 segment (header + ring 0 + ring 1) in a
 * SharedArrayBuffer. Ring 0 carries connector -> listener frames, ring 1 the other way.
 *
 * The header's unused tail holds one end-state block per side (worker transport only; the
 * shm-ring transport says the same with control bytes on its socket):
 *
 *   2048 + 1024 * side:  i32 state (0 open, 1 closed cleanly, 2 closed with an error)
 *                        u32 length of the error JSON {"code":N,"message":"...","reason":"..."}
 *                        JSON bytes (at most END_JSON_MAX_BYTES)
 *
 * A side writes its block before it closes its connection port; the other side reads it when
 * the port's `close` event arrives: state 0 then means the peer died (UNAVAILABLE).
 */

/** Offset of side `side`'s end-state block in the header. */
const endOffset = (side: 0 | 1): number => 2048 + 1024 * side;
/** Largest error JSON an end-state block holds, bytes. */
const END_JSON_MAX_BYTES = 1016;
/** End state: the side is open. */
const END_OPEN = 0;
/** End state: every frame the side sent is in its ring; drain it, then close. */
const END_CLEAN = 1;
/** End state: the side closed with the error in the block. */
const END_ERROR = 2;

/** A new segment with rings of `ringBytes` and a random nonce (16 hex digits). */
export function createWorkerSegment(ringBytes: number): {
  buffer: SharedArrayBuffer;
  nonce: string;
} {
  checkRingBytes(ringBytes);
  const buffer = new SharedArrayBuffer(segmentBytesFor(ringBytes));
  const nonce = randomBytes(8).toString("hex");
  writeHeader(buffer, ringBytes, nonce);
  return { buffer, nonce };
}

/** Records how side `side` ends: cleanly (no error) or with `error`. First write wins. */
export function writeEnd(buffer: SharedArrayBuffer, side: 0 | 1, error?: NearwireError): void {
  const at = endOffset(side);
  const i32 = new Int32Array(buffer, at, 2);
  if (Atomics.load(i32, 0) !== END_OPEN) return;
  if (error === undefined) {
    Atomics.store(i32, 0, END_CLEAN);
    return;
  }
  const body: { code: number; message: string; reason?: string } = {
    code: error.code,
    message: error.message.slice(0, 512),
  };
  if (error.reason !== undefined) body.reason = error.reason;
  const json = Buffer.from(JSON.stringify(body));
  const n = json.length <= END_JSON_MAX_BYTES ? json.length : 0;
  new Uint8Array(buffer, at + 8, END_JSON_MAX_BYTES).set(json.subarray(0, n));
  i32[1] = n;
  Atomics.store(i32, 0, END_ERROR);
}

/**
 * How side `side` ended, seen by the other side once the connection port closed: `undefined`
 * for a clean close, its error, or UNAVAILABLE `peer-closed` when it wrote nothing (it died; the
 * message names `cause` when the worker's owner knows it).
 */
export function readEnd(
  buffer: SharedArrayBuffer,
  side: 0 | 1,
  peer: string,
  cause?: string,
): NearwireError | undefined {
  const at = endOffset(side);
  const i32 = new Int32Array(buffer, at, 2);
  const state = Atomics.load(i32, 0);
  if (state === END_CLEAN) return undefined;
  if (state === END_ERROR) {
    const n = Math.min(i32[1] as number, END_JSON_MAX_BYTES);
    return endError(Buffer.from(buffer, at + 8, n).toString("utf8"), peer);
  }
  const how = cause === undefined ? "exited or closed its port" : `died: ${cause}`;
  return new NearwireError(Code.Unavailable, `worker peer ${peer} ${how}`, {
    reason: "peer-closed",
  });
}

function endError(json: string, peer: string): NearwireError {
  try {
    const o = JSON.parse(json) as { code?: unknown; message?: unknown; reason?: unknown };
    const code = typeof o.code === "number" && isCode(o.code) ? o.code : Code.Unknown;
    const message =
      typeof o.message === "string" ? o.message : `worker peer ${peer} closed with an error`;
    const opts = typeof o.reason === "string" ? { reason: o.reason as ErrorReason } : {};
    return new NearwireError(code, message, opts);
  } catch {
    return new NearwireError(Code.Internal, `worker peer ${peer} wrote a malformed end state`, {
      reason: "protocol-violation",
    });
  }
}
