/**
 * RPC payloads for tests and the vector script that the engine never builds or reads whole
 * (PROTOCOL.md §5.2): a MESSAGE from its bytes, and a REQUEST with its method as a string and
 * its message as a view. The engine reads a REQUEST in place (`decodeRequest` into a
 * `RequestHead`); these are built on it.
 */
import type { Metadata } from "@nearwire/core";
import { decodeRequest, FLAG_HAS_MESSAGE, REQUEST_HEAD_BYTES } from "@nearwire/core/protocol";

/** Bytes of the call id that starts every RPC payload (u32, big-endian). */
const CALL_ID_BYTES = 4;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Encodes a MESSAGE payload: the call id, then the message. */
export function encodeMessage(callId: number, message: Uint8Array): Uint8Array {
  const out = new Uint8Array(CALL_ID_BYTES + message.byteLength);
  new DataView(out.buffer).setUint32(0, callId);
  out.set(message, CALL_ID_BYTES);
  return out;
}

/** A REQUEST read whole: `method` decoded, `message` a view of the payload. */
export interface RequestFrame {
  callId: number;
  flags: number;
  timeoutMs: number;
  method: string;
  metadata: Metadata | undefined;
  message: Uint8Array | undefined;
}

/**
 * Decodes a REQUEST payload whole; throws what `decodeRequest` throws (INTERNAL
 * `protocol-violation` when malformed), or a TypeError when the method path is not UTF-8.
 */
export function decodeRequestFrame(p: Uint8Array): RequestFrame {
  const head = decodeRequest(p);
  return {
    callId: head.callId,
    flags: head.flags,
    timeoutMs: head.timeoutMs,
    method: utf8.decode(p.subarray(REQUEST_HEAD_BYTES, REQUEST_HEAD_BYTES + head.methodBytes)),
    metadata: head.metadata,
    message: head.flags & FLAG_HAS_MESSAGE ? p.subarray(head.messageAt) : undefined,
  };
}
