/**
 * A raw HTTP/2 client over a Unix socket, for tests that play a hostile peer: it writes the
 * client preface and frames of any type, flags, stream and payload (nothing is checked), encodes
 * request headers with HPACK "literal without indexing, new name" only (no encoder state), and
 * reads the server's frames back, collecting GOAWAY, RST_STREAM, HEADERS, DATA and SETTINGS.
 *
 * The constants are RFC 9113's numbers, written out here rather than imported from the engine,
 * so that a wrong constant in the engine cannot hide from the tests.
 */
import net from "node:net";

/** The client connection preface (RFC 9113 §3.4). */
export const PREFACE: Buffer = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/** Frame types (RFC 9113 §6). */
export const T = {
  DATA: 0x0,
  HEADERS: 0x1,
  PRIORITY: 0x2,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

/** Frame flags (RFC 9113 §6). */
export const F = {
  NONE: 0x0,
  END_STREAM: 0x1,
  ACK: 0x1,
  END_HEADERS: 0x4,
  PADDED: 0x8,
  PRIORITY: 0x20,
} as const;

/** SETTINGS parameters (RFC 9113 §6.5.2). */
export const S = {
  HEADER_TABLE_SIZE: 0x1,
  ENABLE_PUSH: 0x2,
  MAX_CONCURRENT_STREAMS: 0x3,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
  MAX_HEADER_LIST_SIZE: 0x6,
} as const;

/** Error codes (RFC 9113 §7). */
export const E = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  SETTINGS_TIMEOUT: 0x4,
  STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
  CONNECT_ERROR: 0xa,
  ENHANCE_YOUR_CALM: 0xb,
  INADEQUATE_SECURITY: 0xc,
  HTTP_1_1_REQUIRED: 0xd,
} as const;

const NONE = Buffer.alloc(0);

// --- frames --------------------------------------------------------------------------------

/** One frame: a 9-byte header (the length is the payload's) and the payload. */
export function frame(
  type: number,
  flags: number,
  streamId: number,
  payload: Uint8Array = NONE,
): Buffer {
  const out = Buffer.allocUnsafe(9 + payload.byteLength);
  out.writeUIntBE(payload.byteLength, 0, 3);
  out[3] = type;
  out[4] = flags;
  out.writeUInt32BE(streamId >>> 0, 5);
  out.set(payload, 9);
  return out;
}

/** A SETTINGS frame with `pairs` of (id, value), or a SETTINGS ACK. */
export function settings(pairs: readonly (readonly [number, number])[] = [], ack = false): Buffer {
  const payload = Buffer.allocUnsafe(pairs.length * 6);
  pairs.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, i * 6);
    payload.writeUInt32BE(value >>> 0, i * 6 + 2);
  });
  return frame(T.SETTINGS, ack ? F.ACK : F.NONE, 0, payload);
}

/** A PING frame with 8 bytes of `opaque` (zeros by default). */
export function ping(opaque: Uint8Array = Buffer.alloc(8), ack = false): Buffer {
  return frame(T.PING, ack ? F.ACK : F.NONE, 0, opaque);
}

/** RST_STREAM on `streamId` with `code`. */
export function rstStream(streamId: number, code: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(code >>> 0, 0);
  return frame(T.RST_STREAM, F.NONE, streamId, payload);
}

/** WINDOW_UPDATE on `streamId` (0: the connection) of `increment` (31 bits, not checked). */
export function windowUpdate(streamId: number, increment: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(increment >>> 0, 0);
  return frame(T.WINDOW_UPDATE, F.NONE, streamId, payload);
}

/** A DATA frame. */
export function data(streamId: number, payload: Uint8Array, endStream = false): Buffer {
  return frame(T.DATA, endStream ? F.END_STREAM : F.NONE, streamId, payload);
}

/** A HEADERS frame carrying `block` (END_HEADERS unless `endHeaders` is false). */
export function headers(
  streamId: number,
  block: Uint8Array,
  options: { endStream?: boolean; endHeaders?: boolean } = {},
): Buffer {
  const flags =
    (options.endStream === true ? F.END_STREAM : 0) |
    (options.endHeaders === false ? 0 : F.END_HEADERS);
  return frame(T.HEADERS, flags, streamId, block);
}

/** A CONTINUATION frame carrying `block`. */
export function continuation(streamId: number, block: Uint8Array, endHeaders = false): Buffer {
  return frame(T.CONTINUATION, endHeaders ? F.END_HEADERS : F.NONE, streamId, block);
}

// --- HPACK (RFC 7541), encoding side only, no state --------------------------------------

/** An HPACK integer with an N-bit prefix (RFC 7541 §5.1); `high`: the first byte's other bits. */
export function hpackInt(value: number, prefixBits: number, high = 0): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([high | value]);
  const out = [high | max];
  let rest = value - max;
  while (rest >= 128) {
    out.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return Buffer.from(out);
}

/** An HPACK string literal without Huffman coding (H = 0). */
export function hpackString(s: string | Uint8Array): Buffer {
  const bytes = typeof s === "string" ? Buffer.from(s, "latin1") : s;
  return Buffer.concat([hpackInt(bytes.byteLength, 7, 0x00), bytes]);
}

/** A literal field without indexing, new name (RFC 7541 §6.2.2: 0x00, H = 0). */
export function literal(name: string, value: string | Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([0x00]), hpackString(name), hpackString(value)]);
}

/** A literal field with incremental indexing, new name (§6.2.1: 0x40): joins the dynamic table. */
export function literalIndexed(name: string, value: string | Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([0x40]), hpackString(name), hpackString(value)]);
}

/** An indexed field (§6.1): `index` in the static (1–61) or dynamic (62…) table. */
export function indexed(index: number): Buffer {
  return hpackInt(index, 7, 0x80);
}

/** A dynamic table size update (§6.3) to `size` bytes. */
export function tableSizeUpdate(size: number): Buffer {
  return hpackInt(size, 5, 0x20);
}

/** A header block of literal fields (name, value pairs), in order. */
export function encodeFields(fields: readonly (readonly [string, string])[]): Buffer {
  return Buffer.concat(fields.map(([name, value]) => literal(name, value)));
}

/** The fields of a gRPC request for `path` (POST, http, localhost, application/grpc, te). */
export function grpcRequestFields(path: string): [string, string][] {
  return [
    [":method", "POST"],
    [":scheme", "http"],
    [":path", path],
    [":authority", "localhost"],
    ["content-type", "application/grpc"],
    ["te", "trailers"],
  ];
}

/** The header block of a gRPC request for `path`, plus `extra` fields after it. */
export function grpcRequestBlock(
  path: string,
  extra: readonly (readonly [string, string])[] = [],
): Buffer {
  return encodeFields([...grpcRequestFields(path), ...extra]);
}

/** A gRPC length-prefixed message (uncompressed) holding `value` as JSON. */
export function grpcJson(value: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(value), "utf8");
  const out = Buffer.allocUnsafe(5 + body.byteLength);
  out[0] = 0;
  out.writeUInt32BE(body.byteLength, 1);
  body.copy(out, 5);
  return out;
}

/** The JSON messages in a stream's gRPC DATA bytes (whole messages only). */
export function parseGrpcJson(bytes: Buffer): unknown[] {
  const out: unknown[] = [];
  let pos = 0;
  while (bytes.byteLength - pos >= 5) {
    const n = bytes.readUInt32BE(pos + 1);
    if (bytes.byteLength - pos - 5 < n) break;
    out.push(JSON.parse(bytes.subarray(pos + 5, pos + 5 + n).toString("utf8")));
    pos += 5 + n;
  }
  return out;
}

// --- the client ----------------------------------------------------------------------------

/** A GOAWAY the server sent. */
export interface GoAway {
  lastStreamId: number;
  code: number;
  debug: string;
}

/** Decodes a whole header block (HEADERS + CONTINUATION payloads) into a flat name, value list. */
export type BlockDecoder = (block: Buffer) => string[];

/** Options of {@link RawH2.connect}. */
export interface RawH2Options {
  /**
   * Answer the server's SETTINGS with an ACK once {@link RawH2.handshake} has sent ours (default
   * true). Before that nothing is answered: an ACK is no client preface.
   */
  ackSettings?: boolean;
  /** Decodes the server's header blocks (in order: HPACK has state); none are decoded without. */
  decode?: BlockDecoder;
  /** Keep each stream's DATA bytes (default true; a stream keeps at most 1 MiB). */
  keepData?: boolean;
}

const KEEP_DATA_BYTES = 1024 * 1024;

/**
 * One raw HTTP/2 connection. Everything received is parsed into frames and collected per type;
 * {@link waitFor} waits until a predicate over what was collected holds (or the connection
 * closes, or a timeout passes).
 */
export class RawH2 {
  readonly socket: net.Socket;
  /** Frames received, by type. */
  readonly counts = new Map<number, number>();
  /** The first GOAWAY received, if any. */
  goAway: GoAway | undefined;
  /** RST_STREAM codes received, by stream (the first one of each stream). */
  readonly resets = new Map<number, number>();
  /** Decoded header lists received (flat name, value lists), by stream, in order. */
  readonly headers = new Map<number, string[][]>();
  /** Raw header blocks received, by stream (always kept). */
  readonly headerBlocks = new Map<number, Buffer[]>();
  /** DATA bytes received, by stream (counted whether or not `keepData`). */
  readonly dataBytes = new Map<number, number>();
  readonly #data = new Map<number, Buffer[]>();
  /** Streams the server ended (END_STREAM on DATA or HEADERS). */
  readonly ended = new Set<number>();
  /** PING ACKs received. */
  pingAcks = 0;
  /** SETTINGS (not ACK) received from the server, each as (id, value) pairs. */
  readonly serverSettings: [number, number][][] = [];
  /** The server's HPACK decode failed with this error (decoding stops). */
  decodeError: Error | undefined;
  /** Bytes received in all. */
  receivedBytes = 0;
  /** A frame the client could not parse (the server sent garbage). */
  parseError: string | undefined;
  /** The socket's error, if any (EPIPE, ECONNRESET after the server closed). */
  socketError: Error | undefined;
  /** True once the socket closed; {@link closedAt} is when (ms since the epoch). */
  closed = false;
  closedAt = 0;
  /** Resolves once the socket closed. */
  readonly whenClosed: Promise<void>;
  readonly #options: RawH2Options;
  #pending: Buffer = NONE;
  #block: { streamId: number; flags: number; parts: Buffer[] } | undefined;
  #waiters: (() => void)[] = [];
  #handshakeSent = false;

  private constructor(socket: net.Socket, options: RawH2Options) {
    this.socket = socket;
    this.#options = options;
    this.whenClosed = new Promise((resolve) => {
      socket.once("close", () => {
        this.closed = true;
        this.closedAt = Date.now();
        resolve();
        this.#wake();
      });
    });
    socket.on("error", (err) => {
      this.socketError = err;
    });
    socket.on("data", (chunk: Buffer) => this.#onBytes(chunk));
  }

  /** Connects to the Unix socket at `path` (nothing is sent yet). */
  static connect(path: string, options: RawH2Options = {}): Promise<RawH2> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(path);
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.off("error", reject);
        resolve(new RawH2(socket, options));
      });
    });
  }

  /** Writes the client preface and a SETTINGS frame with `pairs` (empty by default). */
  handshake(pairs: readonly (readonly [number, number])[] = []): void {
    this.#handshakeSent = true;
    this.send(PREFACE, settings(pairs));
  }

  /** Writes bytes at once (nothing once closed); true when the socket took them, none queued. */
  send(...chunks: Uint8Array[]): boolean {
    if (this.socket.destroyed) return false;
    return this.socket.write(
      chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks),
    );
  }

  /**
   * Writes `chunks` as one socket write and waits until the socket took it all (or closed).
   * Resolves with the bytes handed to the socket. When the server is expected to close the
   * connection part-way with a GOAWAY, use {@link sendPaced}.
   */
  async sendAll(chunks: readonly Uint8Array[]): Promise<number> {
    const socket = this.socket;
    if (socket.destroyed) return 0;
    const bytes = Buffer.concat(chunks);
    if (socket.write(bytes)) return bytes.byteLength;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        socket.off("drain", done);
        socket.off("close", done);
        resolve();
      };
      socket.once("drain", done);
      socket.once("close", done);
    });
    return bytes.byteLength;
  }

  /**
   * Writes `bytes` in chunks of `chunkBytes`, waiting `pauseMs` after each, and stops once the
   * server sent GOAWAY or the socket closed. Use it when the server is expected to close
   * part-way: Node destroys a socket whose write fails (EPIPE) before it reads what is already
   * waiting, so a GOAWAY that arrives just before the close can be lost to a write in flight;
   * the pauses leave the event loop time to read it first (the remaining race is small, see
   * {@link lostToEpipe}). Resolves with the bytes written.
   */
  async sendPaced(bytes: Uint8Array, chunkBytes = 32 * 1024, pauseMs = 2): Promise<number> {
    let at = 0;
    while (
      at < bytes.byteLength &&
      !this.closed &&
      !this.socket.destroyed &&
      this.goAway === undefined
    ) {
      const end = Math.min(at + chunkBytes, bytes.byteLength);
      this.socket.write(bytes.subarray(at, end));
      at = end;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    return at;
  }

  /**
   * True when the socket closed on a failed write (EPIPE) before any GOAWAY was read: what the
   * server sent before it closed may have been lost on our side, so the case is inconclusive.
   */
  get lostToEpipe(): boolean {
    return (
      this.goAway === undefined &&
      (this.socketError as NodeJS.ErrnoException | undefined)?.code === "EPIPE"
    );
  }

  /**
   * Waits until `predicate()` holds (checked after each batch of frames received and when the
   * socket closes), or `timeoutMs` passes. Resolves with the predicate's last value.
   */
  async waitFor(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      const left = deadline - Date.now();
      if (left <= 0 || this.closed) return predicate();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return true;
  }

  /** Waits until the socket closes; resolves false when it is still open after `timeoutMs`. */
  waitClosed(timeoutMs: number): Promise<boolean> {
    return this.waitFor(() => this.closed, timeoutMs);
  }

  /** The stream's response: decoded header lists, DATA bytes received, and whether it ended. */
  stream(streamId: number): {
    headers: string[][];
    data: Buffer;
    ended: boolean;
    reset: number | undefined;
  } {
    return {
      headers: this.headers.get(streamId) ?? [],
      data: Buffer.concat(this.#data.get(streamId) ?? []),
      ended: this.ended.has(streamId),
      reset: this.resets.get(streamId),
    };
  }

  /** Stops reading (the kernel's buffers fill up, then the server's writes queue). */
  pauseReading(): void {
    this.socket.pause();
  }

  /** Reads again. */
  resumeReading(): void {
    this.socket.resume();
  }

  /** Closes the connection at once. */
  destroy(): void {
    this.socket.destroy();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  #onBytes(chunk: Buffer): void {
    this.receivedBytes += chunk.byteLength;
    let buf = this.#pending.byteLength === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    let pos = 0;
    while (buf.byteLength - pos >= 9 && this.parseError === undefined) {
      const length = buf.readUIntBE(pos, 3);
      if (pos + 9 + length > buf.byteLength) break;
      const type = buf[pos + 3] as number;
      const flags = buf[pos + 4] as number;
      const streamId = buf.readUInt32BE(pos + 5) & 0x7fffffff;
      this.#frame(type, flags, streamId, buf.subarray(pos + 9, pos + 9 + length));
      pos += 9 + length;
    }
    buf = buf.subarray(pos);
    this.#pending = buf.byteLength === 0 ? NONE : Buffer.from(buf);
    this.#wake();
  }

  #frame(type: number, flags: number, streamId: number, payload: Buffer): void {
    this.counts.set(type, (this.counts.get(type) ?? 0) + 1);
    switch (type) {
      case T.SETTINGS: {
        if ((flags & F.ACK) !== 0) return;
        const pairs: [number, number][] = [];
        for (let at = 0; at + 6 <= payload.byteLength; at += 6)
          pairs.push([payload.readUInt16BE(at), payload.readUInt32BE(at + 2)]);
        this.serverSettings.push(pairs);
        if (this.#handshakeSent && this.#options.ackSettings !== false)
          this.send(settings([], true));
        return;
      }
      case T.PING:
        if ((flags & F.ACK) !== 0) this.pingAcks++;
        return;
      case T.GOAWAY:
        if (payload.byteLength < 8) {
          this.parseError = `GOAWAY of ${payload.byteLength} B`;
          return;
        }
        this.goAway ??= {
          lastStreamId: payload.readUInt32BE(0) & 0x7fffffff,
          code: payload.readUInt32BE(4),
          debug: payload.subarray(8).toString("utf8"),
        };
        return;
      case T.RST_STREAM:
        if (payload.byteLength !== 4) {
          this.parseError = `RST_STREAM of ${payload.byteLength} B`;
          return;
        }
        if (!this.resets.has(streamId)) this.resets.set(streamId, payload.readUInt32BE(0));
        return;
      case T.DATA: {
        this.dataBytes.set(streamId, (this.dataBytes.get(streamId) ?? 0) + payload.byteLength);
        if (
          this.#options.keepData !== false &&
          (this.dataBytes.get(streamId) ?? 0) <= KEEP_DATA_BYTES
        ) {
          const list = this.#data.get(streamId) ?? [];
          list.push(Buffer.from(payload));
          this.#data.set(streamId, list);
        }
        if ((flags & F.END_STREAM) !== 0) this.ended.add(streamId);
        return;
      }
      case T.HEADERS: {
        let start = 0;
        let end = payload.byteLength;
        if ((flags & F.PADDED) !== 0) {
          start = 1;
          end -= payload[0] as number;
        }
        if ((flags & F.PRIORITY) !== 0) start += 5;
        this.#block = { streamId, flags, parts: [Buffer.from(payload.subarray(start, end))] };
        if ((flags & F.END_HEADERS) !== 0) this.#blockDone();
        return;
      }
      case T.CONTINUATION:
        if (this.#block === undefined || this.#block.streamId !== streamId) {
          this.parseError = `CONTINUATION on stream ${streamId} without HEADERS`;
          return;
        }
        this.#block.parts.push(Buffer.from(payload));
        if ((flags & F.END_HEADERS) !== 0) this.#blockDone();
        return;
      default:
        return;
    }
  }

  #blockDone(): void {
    const block = this.#block as { streamId: number; flags: number; parts: Buffer[] };
    this.#block = undefined;
    const whole = Buffer.concat(block.parts);
    const blocks = this.headerBlocks.get(block.streamId) ?? [];
    blocks.push(whole);
    this.headerBlocks.set(block.streamId, blocks);
    if ((block.flags & F.END_STREAM) !== 0) this.ended.add(block.streamId);
    const decode = this.#options.decode;
    if (decode === undefined || this.decodeError !== undefined) return;
    try {
      const fields = decode(whole);
      const lists = this.headers.get(block.streamId) ?? [];
      lists.push(fields);
      this.headers.set(block.streamId, lists);
    } catch (err) {
      this.decodeError = err as Error;
    }
  }
}

/** The value of the first field `name` in a flat name, value list. */
export function fieldOf(fields: readonly string[] | undefined, name: string): string | undefined {
  if (fields === undefined) return undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}
