/**
 * The connection preface of frame v1 over a stream socket (PROTOCOL.md §4): the HELLO each side
 * sends, the checks on the peer's, the server's features answer, and the errors a preface ends
 * with, a peer that speaks another transport's protocol among them (§4.2). Plain functions: the
 * channel keeps the state.
 */
import { Code, NearwireError } from "@nearwire/core";
import { FrameType, rpcFeatures } from "@nearwire/core/protocol";
import {
  decodeHello,
  encodeFrame,
  encodeHello,
  FEATURE_BATCH,
  FEATURE_CREDIT_BYTES,
  FEATURE_CREDIT_WINDOW,
  type Hello,
  PROTOCOL_VERSION,
} from "@nearwire/frame";
import { sniffForeignProtocol } from "@nearwire/socket";

/** Largest first-frame payload a server accepts before the preface completes (bytes). */
export const PREFACE_MAX_PAYLOAD_BYTES = 64;

/**
 * A HELLO frame announcing `maxFrameBytes`, with the features field when `features` is given,
 * and the byte window `creditWindowBytes` when the features announce it.
 */
export function helloFrame(
  maxFrameBytes: number,
  features: number | undefined,
  creditWindowBytes: number | undefined,
): Uint8Array {
  const window =
    features !== undefined && (features & FEATURE_CREDIT_WINDOW) !== 0
      ? creditWindowBytes
      : undefined;
  return encodeFrame(
    FrameType.Hello,
    encodeHello({
      version: PROTOCOL_VERSION,
      maxFrameBytes,
      ...(features === undefined ? {} : { features }),
      ...(window === undefined ? {} : { creditWindowBytes: window }),
    }),
  );
}

/**
 * The peer's HELLO, from the first frame of its preface: INVALID_ARGUMENT `bad-preface` for
 * another frame type or a malformed HELLO, FAILED_PRECONDITION `version-mismatch` for another
 * protocol version.
 */
export function readHello(type: number, payload: Uint8Array): Hello {
  if (type !== FrameType.Hello) {
    throw new NearwireError(
      Code.InvalidArgument,
      `first frame has type 0x${type.toString(16)}, not HELLO`,
      { reason: "bad-preface" },
    );
  }
  const hello = decodeHello(payload);
  if (hello.version !== PROTOCOL_VERSION) {
    throw new NearwireError(
      Code.FailedPrecondition,
      `peer speaks protocol version ${hello.version}, this side ${PROTOCOL_VERSION}`,
      { reason: "version-mismatch" },
    );
  }
  return hello;
}

/**
 * The features a client announces: BATCH and credit by bytes (the RPC engine does both) when
 * `batches`, and its own byte window when it has one; none otherwise, so a client configured
 * without BATCH or a window sends the 16-byte HELLO.
 */
export function clientFeatures(batches: boolean, window: boolean): number | undefined {
  return batches || window ? rpcFeatures(batches, window) : undefined;
}

/**
 * The features a server answers: none when the client sent none (it gets the 16-byte HELLO it
 * has always got), else credit by bytes, BATCH when `batches`, and its byte window when it has
 * one (PROTOCOL.md §4.1).
 */
export function answerFeatures(
  clientFeatures: number | undefined,
  batches: boolean,
  window: boolean,
): number | undefined {
  return clientFeatures === undefined ? undefined : rpcFeatures(batches, window);
}

/** Whether a HELLO's features announce BATCH frames. */
export function announcesBatch(features: number | undefined): boolean {
  return ((features ?? 0) & FEATURE_BATCH) !== 0;
}

/** Whether a HELLO's features announce credit by bytes. */
export function announcesCreditBytes(features: number | undefined): boolean {
  return ((features ?? 0) & FEATURE_CREDIT_BYTES) !== 0;
}

/**
 * What a stream error before the preface completed becomes: the peer does not speak nearwire
 * (INVALID_ARGUMENT `bad-preface`), unless it speaks another protocol version.
 */
export function prefaceError(error: NearwireError, peer: string): NearwireError {
  if (error.reason === "version-mismatch") return error;
  return new NearwireError(Code.InvalidArgument, `bad preface from ${peer}: ${error.message}`, {
    reason: "bad-preface",
    cause: error,
  });
}

/** The preface did not complete within `timeoutMs`. */
export function prefaceTimeoutError(peer: string, timeoutMs: number): NearwireError {
  return new NearwireError(
    Code.Unavailable,
    `preface with ${peer} not complete after ${timeoutMs} ms`,
  );
}

/** How a channel ends when its peer speaks another protocol. */
export interface TransportMismatch {
  /** FAILED_PRECONDITION `transport-mismatch`, naming the protocol (and the package to use). */
  error: NearwireError;
  /** Answer the peer before closing: a server does, a client only closes. */
  tell: boolean;
  /** What to answer instead of GOAWAY: an shm-ring client's own handshake error frame. */
  farewell: Uint8Array | undefined;
}

/**
 * Judges the peer's first bytes (PROTOCOL.md §4.2): the mismatch when they are another
 * protocol's, undefined when they may be nearwire frames.
 */
export function transportMismatch(
  head: Uint8Array,
  role: "client" | "server",
  peer: string,
): TransportMismatch | undefined {
  const foreign = sniffForeignProtocol(head, role);
  if (foreign === undefined) return undefined;
  if (role === "client") {
    const use = foreign.package === undefined ? "" : `: connect with ${foreign.package}`;
    const error = new NearwireError(
      Code.FailedPrecondition,
      `the server at ${peer} speaks ${foreign.name}, not nearwire frames${use}`,
      { reason: "transport-mismatch" },
    );
    return { error, tell: false, farewell: undefined };
  }
  const message = `this is a @nearwire/uds server (nearwire frames); the client speaks ${foreign.name}${foreign.package === undefined ? "" : ` (a ${foreign.package} client?)`}`;
  const error = new NearwireError(Code.FailedPrecondition, message, {
    reason: "transport-mismatch",
  });
  // A shm-ring client reads the answer as its own handshake's error frame (§6.1).
  const farewell = foreign.package === "@nearwire/shm-ring" ? shmErrorFrame(error) : undefined;
  return { error, tell: true, farewell };
}

/** An shm-ring handshake error frame (§6.1): u32 BE length, then `{"error":{…}}`. */
function shmErrorFrame(error: NearwireError): Buffer {
  const json = Buffer.from(
    JSON.stringify({
      error: { code: error.code, reason: error.reason, message: error.message },
    }),
  );
  const frame = Buffer.alloc(4 + json.length);
  frame.writeUInt32BE(json.length, 0);
  json.copy(frame, 4);
  return frame;
}
