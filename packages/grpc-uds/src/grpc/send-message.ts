/** sendMessageBytes: one encoded gRPC message on a stream, behind its 5-byte prefix. */

import { writeU32 } from "../http2/frame.js";
import type { H2Stream } from "../http2/h2-stream.js";
import type { Http2Session } from "../http2/http2-session.js";
import { compress, type Encoding } from "./compression.js";
import { MESSAGE_PREFIX_BYTES } from "./message-reader.js";

/** Below this many bytes a message is copied behind its prefix; above, sent as its own buffer. */
const COPY_MAX_BYTES = 16 * 1024;

/**
 * Sends one encoded message on `stream`: prefix and bytes in one DATA run (small messages are
 * copied behind their prefix; large ones go out as their own buffer, not copied).
 */
export function sendMessageBytes(
  session: Http2Session,
  stream: H2Stream,
  encoded: Uint8Array,
  encoding: Encoding,
): void {
  let bytes = encoded;
  let flag = 0;
  if (encoding === "gzip") {
    bytes = compress(encoded);
    flag = 1;
  }
  const n = bytes.byteLength;
  if (n < COPY_MAX_BYTES) {
    const framed = new Uint8Array(MESSAGE_PREFIX_BYTES + n);
    framed[0] = flag;
    writeU32(framed, 1, n);
    framed.set(bytes, MESSAGE_PREFIX_BYTES);
    session.sendData(stream, framed, 0, framed.byteLength, false);
    return;
  }
  const prefix = new Uint8Array(MESSAGE_PREFIX_BYTES);
  prefix[0] = flag;
  writeU32(prefix, 1, n);
  session.sendData(stream, prefix, 0, MESSAGE_PREFIX_BYTES, false);
  session.sendData(stream, bytes, 0, n, false);
}
