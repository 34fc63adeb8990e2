/** sendMessageBytes: one encoded gRPC message on a stream, behind its 5-byte prefix. */

import { writeU32 } from "../http2/frame.js";
import type { H2Stream } from "../http2/h2-stream.js";
import type { DataFiller, Http2Session } from "../http2/http2-session.js";
import { compress, type Encoding } from "./compression.js";
import { MESSAGE_PREFIX_BYTES } from "./message-reader.js";

/** Below this many bytes a message is copied behind its prefix; above, sent as its own buffer. */
const COPY_MAX_BYTES = 16 * 1024;

/** Copies one message behind its prefix straight into the connection's batch. */
class CopyFiller implements DataFiller {
  bytes: Uint8Array = new Uint8Array(0);
  flag = 0;
  fillData(dest: Uint8Array, start: number, end: number): number {
    const n = this.bytes.byteLength;
    if (MESSAGE_PREFIX_BYTES + n > end - start) return -1;
    dest[start] = this.flag;
    writeU32(dest, start + 1, n);
    dest.set(this.bytes, start + MESSAGE_PREFIX_BYTES);
    return MESSAGE_PREFIX_BYTES + n;
  }
}
const copier = new CopyFiller();

/**
 * Sends one encoded message on `stream`: prefix and bytes in one DATA run. A small message is
 * copied behind its prefix into the connection's batch (or, without window, into a buffer of
 * its own that waits); a large one goes out as its own buffer, not copied. With `endStream`
 * the DATA ends the stream.
 */
export function sendMessageBytes(
  session: Http2Session,
  stream: H2Stream,
  encoded: Uint8Array,
  encoding: Encoding,
  endStream = false,
): void {
  let bytes = encoded;
  let flag = 0;
  if (encoding === "gzip") {
    bytes = compress(encoded);
    flag = 1;
  }
  const n = bytes.byteLength;
  if (n < COPY_MAX_BYTES) {
    copier.bytes = bytes;
    copier.flag = flag;
    const sent = session.trySendDataWith(stream, endStream, copier);
    copier.bytes = EMPTY;
    if (sent >= 0) return;
    const framed = new Uint8Array(MESSAGE_PREFIX_BYTES + n);
    framed[0] = flag;
    writeU32(framed, 1, n);
    framed.set(bytes, MESSAGE_PREFIX_BYTES);
    session.sendData(stream, framed, 0, framed.byteLength, endStream);
    return;
  }
  const prefix = new Uint8Array(MESSAGE_PREFIX_BYTES);
  prefix[0] = flag;
  writeU32(prefix, 1, n);
  session.sendData(stream, prefix, 0, MESSAGE_PREFIX_BYTES, false);
  session.sendData(stream, bytes, 0, n, endStream);
}

const EMPTY = new Uint8Array(0);
