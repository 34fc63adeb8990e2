/**
 * Http2Session: one HTTP/2 connection (RFC 9113) over a connected socket, client or server:
 * the preface and SETTINGS exchange, frame parsing, HPACK (RFC 7541), streams and their states,
 * connection and stream flow control, PING, RST_STREAM and GOAWAY, and the limits that keep a
 * hostile peer from costing more than its own connection (see {@link SessionLimits}).
 *
 * Streams are owned by the layer above (the gRPC calls): it is told of a stream's headers, data
 * and end through the stream's {@link StreamListener}, and sends with {@link sendHeaders},
 * {@link sendData}, {@link trySendDataWith} and {@link resetStream}. A frame with an error the
 * RFC calls a connection error ends the connection with GOAWAY; a stream error resets only that
 * stream.
 */
import { messageOf } from "@nearwire/core/transport-kit";
import type { SocketReader } from "@nearwire/socket";
import { connectionPool } from "../message-pool.js";
import {
  CLIENT_PREFACE,
  DEFAULT_WINDOW_BYTES,
  FRAME_HEADER_BYTES,
  FrameFlag,
  FrameType,
  H2Code,
  Http2Error,
  h2CodeName,
  MAX_MAX_FRAME_BYTES,
  MAX_WINDOW_BYTES,
  MIN_MAX_FRAME_BYTES,
  readU32,
  SettingId,
  writeFrameHeader,
  writeU32,
} from "./frame.js";
import { FrameWriter, type WritableSocket } from "./frame-writer.js";
import { H2Stream, type StreamListener } from "./h2-stream.js";
import { checkFieldList, type FieldListKind } from "./header-checks.js";
import { HpackDecoder, HpackEncoder, HpackError } from "./hpack.js";

/** Limits and windows of one side of a connection; all required here (the transport fills defaults). */
export interface SessionLimits {
  /** Streams the peer may have open at once (our SETTINGS_MAX_CONCURRENT_STREAMS). */
  maxConcurrentStreams: number;
  /** Our SETTINGS_INITIAL_WINDOW_SIZE: what the peer may send on a stream before we credit, bytes. */
  streamWindowBytes: number;
  /** The connection receive window we keep open, bytes. */
  connectionWindowBytes: number;
  /** Our SETTINGS_MAX_FRAME_SIZE, bytes. */
  maxFrameBytes: number;
  /** Our SETTINGS_MAX_HEADER_LIST_SIZE, bytes (RFC 9113 §6.5.2 size). */
  maxHeaderListBytes: number;
  /** How long the peer may take to complete the preface and its first SETTINGS, ms. */
  handshakeTimeoutMs: number;
  /** Send a PING after this long without a frame from the peer, ms (0: never). */
  keepaliveMs: number;
  /** Close when a PING is not answered within this, ms. */
  keepaliveTimeoutMs: number;
}

/** What the layer above learns about the connection. */
export interface SessionEvents {
  /** Server: the peer opened `stream` with a request's headers (checked). */
  onStream?(stream: H2Stream, fields: string[], endStream: boolean): void;
  /** Server: a request whose header list passed `maxHeaderListBytes`; the stream is open. */
  onHeadersTooLarge?(stream: H2Stream): void;
  /** The peer's first SETTINGS arrived: the connection is up. */
  onReady?(): void;
  /** The peer sent GOAWAY; streams above `lastStreamId` were already aborted. */
  onGoAway?(lastStreamId: number, code: number): void;
  /** A stream closed: a new one may be opened (client, under the peer's limit). */
  onStreamClosed?(): void;
  /** The connection has ended; `error` is undefined for a clean close. */
  onClose(error: Http2Error | Error | undefined): void;
}

/**
 * A DATA frame of at least this many payload bytes that has not fully arrived is handed on as
 * its bytes come (unpadded frames), instead of being joined once whole: a 64 KiB frame spans
 * two socket reads, and joining them cost a 64 KiB buffer and a copy per frame.
 */
const DATA_PIECES_MIN_BYTES = 4096;

/** Writes a DATA payload in place: into `dest[start … end)`, returning its length or -1. */
export interface DataFiller {
  fillData(dest: Uint8Array, start: number, end: number): number;
}

/** A PING or SETTINGS answer, RST_STREAM or GOAWAY is refused when this much is still queued (bytes). */
const CONTROL_BACKLOG_BYTES = 1024 * 1024;
/** Rapid reset (CVE-2023-44487): streams the peer may reset in a burst … */
const RESET_BURST = 1000;
/** … and per second after it. */
const RESETS_PER_SECOND = 1000;
/** How long a connection ended by an error lingers so that its GOAWAY is delivered, ms. */
const GOAWAY_LINGER_MS = 200;
/** CONTINUATION frames one header block may span. */
const MAX_CONTINUATIONS = 64;

type Phase = "preface" | "settings" | "open" | "closed";

export class Http2Session {
  readonly role: "client" | "server";
  readonly writer: FrameWriter;
  /**
   * Buffers large messages are encoded into when the codec can encode in place
   * (`sendMessageInPlace`), back once the socket has written them.
   */
  readonly sendPool = connectionPool();
  readonly #socket: WritableSocket;
  readonly #limits: SessionLimits;
  readonly #events: SessionEvents;
  readonly #streams = new Map<number, H2Stream>();
  readonly #decoder: HpackDecoder;
  readonly #encoder = new HpackEncoder();
  #phase: Phase;
  /** Received bytes not yet parsed (an incomplete frame), in the order they came. */
  #pendingParts: Buffer[] = [];
  #pendingBytes = 0;
  /** Bytes the pending data must reach before parsing can go on (the frame's whole size). */
  #pendingNeed = 0;
  /**
   * A DATA frame whose payload is still arriving (see {@link DATA_PIECES_MIN_BYTES}): its
   * stream (undefined: its bytes are dropped), flags, and the payload bytes still to come.
   */
  #dataStream: H2Stream | undefined;
  #dataFlags = 0;
  #dataLeft = 0;
  /** Highest stream id the peer opened (server) / we opened (client). */
  #lastPeerStreamId = 0;
  #nextStreamId: number;
  #peerMaxFrameBytes = MIN_MAX_FRAME_BYTES;
  #peerInitialWindow = DEFAULT_WINDOW_BYTES;
  #peerMaxConcurrent = Number.POSITIVE_INFINITY;
  #connSendWindow = DEFAULT_WINDOW_BYTES;
  #connRecvWindow = DEFAULT_WINDOW_BYTES;
  #connRecvUncredited = 0;
  /** Streams with data waiting for window. */
  readonly #blocked = new Set<H2Stream>();
  /** Streams this side opened and has not yet seen closed (client). */
  #localOpen = 0;
  /** Header block being collected across CONTINUATION frames. */
  #headerBlock:
    | { streamId: number; flags: number; parts: Uint8Array[]; bytes: number; frames: number }
    | undefined;
  #fields: string[] = [];
  readonly #emit = (name: string, value: string): void => {
    this.#fields.push(name, value);
  };
  /**
   * The DATA frame that ends the batch, which a stream's next message may join: its stream (0:
   * none), the offset of its header, where it ends, and the writer's generation then.
   */
  #openDataStream = 0;
  #openDataHeaderAt = 0;
  #openDataEnd = 0;
  #openDataGeneration = -1;
  /** Answers queued since {@link FrameWriter.completedWrites} was last seen to move. */
  #controlQueued = 0;
  #controlWritesSeen = 0;
  /** Streams this side reset lately: frames the peer had in flight for them are dropped quietly. */
  readonly #recentlyReset = new Set<number>();
  readonly #resetOrder: number[] = [];
  #goAwaySent = false;
  #goAwayReceived = false;
  #resetTokens = RESET_BURST;
  #resetStamp = Date.now();
  #timer: NodeJS.Timeout | undefined;
  #keepalive: NodeJS.Timeout | undefined;
  #lastFrameAt = Date.now();
  #pingOutstanding = 0;
  /** The bytes being read are the reader's shared buffer (see {@link #onBytes}). */
  #transient = false;

  /**
   * `reader`: the `SocketReader` the socket was made with (`onread`, or `adoptAccepted`): reads
   * arrive in its shared buffer, valid only during the callback, instead of a new buffer per
   * read (`data` events, without it).
   */
  constructor(
    socket: WritableSocket,
    role: "client" | "server",
    limits: SessionLimits,
    events: SessionEvents,
    reader?: SocketReader,
  ) {
    this.#socket = socket;
    this.role = role;
    this.#limits = limits;
    this.#events = events;
    this.writer = new FrameWriter(socket);
    this.#decoder = new HpackDecoder({ maxHeaderListBytes: limits.maxHeaderListBytes });
    this.#nextStreamId = role === "client" ? 1 : 2;
    this.#phase = role === "server" ? "preface" : "settings";
    if (reader === undefined) socket.on("data", (chunk: Buffer) => this.#onBytes(chunk, false));
    else
      reader.attach({
        readTarget: () => undefined,
        readSmall: () => false,
        onRead: (buf, n) => {
          this.#onBytes(Buffer.from(buf.buffer, buf.byteOffset, n), true);
          return true;
        },
      });
    socket.on("error", (err: Error) => this.#ended(err));
    socket.on("close", () => this.#ended(undefined));
    socket.on("end", () => {
      // The peer closed its side; HTTP/2 has nothing more to say once it stops reading either.
      this.#ended(undefined);
    });
    if (role === "client") this.writer.raw(CLIENT_PREFACE);
    this.#sendSettings();
    if (limits.connectionWindowBytes > DEFAULT_WINDOW_BYTES) {
      const inc = limits.connectionWindowBytes - DEFAULT_WINDOW_BYTES;
      this.#windowUpdate(0, inc);
      this.#connRecvWindow += inc;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#phase !== "open" && this.#phase !== "closed")
        // A peer that never completed the preface gets no GOAWAY: the socket closes.
        this.destroy(
          new Error(`no HTTP/2 preface and SETTINGS within ${limits.handshakeTimeoutMs} ms`),
        );
    }, limits.handshakeTimeoutMs);
    this.#timer.unref?.();
  }

  /** True once the peer's SETTINGS arrived and until the connection ends. */
  get open(): boolean {
    return this.#phase === "open";
  }

  /** True when the connection ended (or is ending). */
  get closed(): boolean {
    return this.#phase === "closed";
  }

  /** True once either side sent GOAWAY: no new streams. */
  get goingAway(): boolean {
    return this.#goAwaySent || this.#goAwayReceived;
  }

  /** Streams currently open on this connection. */
  get streamCount(): number {
    return this.#streams.size;
  }

  /** Client: true when the peer's SETTINGS_MAX_CONCURRENT_STREAMS lets one more stream open. */
  get canOpenStream(): boolean {
    return this.#phase === "open" && !this.goingAway && this.#localOpen < this.#peerMaxConcurrent;
  }

  /** Client: opens the next stream (send its HEADERS with {@link sendHeaders} at once). */
  openStream(listener: StreamListener): H2Stream {
    const id = this.#nextStreamId;
    if (id > MAX_WINDOW_BYTES)
      throw new Http2Error(H2Code.REFUSED_STREAM, "stream ids exhausted on this connection");
    this.#nextStreamId += 2;
    const stream = new H2Stream(id, this.#peerInitialWindow, this.#limits.streamWindowBytes);
    stream.listener = listener;
    this.#streams.set(id, stream);
    this.#localOpen++;
    return stream;
  }

  /** Sends a field list as HEADERS (+ CONTINUATION when over the peer's frame size). */
  sendHeaders(stream: H2Stream, fields: readonly string[], endStream: boolean): void {
    if (stream.localEnded || this.#phase === "closed") return;
    if (endStream && stream.pending !== undefined) {
      stream.pending.push({
        bytes: undefined,
        start: 0,
        end: 0,
        endStream: true,
        trailers: [...fields],
      });
      return;
    }
    this.#writeHeaders(stream.id, fields, endStream);
    stream.headersSent = true;
    if (endStream) this.#endLocal(stream);
  }

  #writeHeaders(streamId: number, fields: readonly string[], endStream: boolean): void {
    const block = this.#encoder.encode(fields);
    const max = this.#peerMaxFrameBytes;
    const endFlag = endStream ? FrameFlag.END_STREAM : 0;
    if (block.byteLength <= max) {
      const writer = this.writer;
      const n = block.byteLength;
      const batch = writer.reserve(FRAME_HEADER_BYTES + n);
      const at = writer.offset;
      writeFrameHeader(batch, at, n, FrameType.HEADERS, endFlag | FrameFlag.END_HEADERS, streamId);
      batch.set(block, at + FRAME_HEADER_BYTES);
      writer.commit(FRAME_HEADER_BYTES + n);
      return;
    }
    const copy = Uint8Array.prototype.slice.call(block) as Uint8Array;
    let pos = 0;
    let type: number = FrameType.HEADERS;
    while (pos < copy.byteLength) {
      const n = Math.min(max, copy.byteLength - pos);
      const last = pos + n === copy.byteLength;
      const flags = (type === FrameType.HEADERS ? endFlag : 0) | (last ? FrameFlag.END_HEADERS : 0);
      this.writer.frame(type, flags, streamId, copy, pos, pos + n);
      pos += n;
      type = FrameType.CONTINUATION;
    }
  }

  /**
   * Sends `bytes[start … end)` as DATA within the flow-control windows; what does not fit waits
   * (in order, with anything sent after it) until WINDOW_UPDATE. The bytes must not change until
   * sent: `sent`, if given, runs once the socket has written the last of them (now or after a
   * WINDOW_UPDATE; never when the stream ends first — the bytes are then dropped, not reused).
   * Returns true when nothing waits on this stream.
   */
  sendData(
    stream: H2Stream,
    bytes: Uint8Array,
    start: number,
    end: number,
    endStream: boolean,
    sent?: () => void,
  ): boolean {
    if (stream.localEnded || this.#phase === "closed") return true;
    if (stream.pending !== undefined) {
      stream.pending.push({ bytes, start, end, endStream, trailers: undefined, sent });
      return false;
    }
    let pos = start;
    const max = this.#peerMaxFrameBytes;
    const writer = this.writer;
    while (pos < end) {
      const n = Math.min(end - pos, stream.sendWindow, this.#connSendWindow, max);
      if (n <= 0) {
        stream.pending = [{ bytes, start: pos, end, endStream, trailers: undefined, sent }];
        this.#blocked.add(stream);
        return false;
      }
      const last = pos + n === end;
      writer.frame(
        FrameType.DATA,
        last && endStream ? FrameFlag.END_STREAM : 0,
        stream.id,
        bytes,
        pos,
        pos + n,
      );
      stream.sendWindow -= n;
      this.#connSendWindow -= n;
      pos += n;
    }
    if (start === end && endStream) writer.frame(FrameType.DATA, FrameFlag.END_STREAM, stream.id);
    if (sent !== undefined) writer.whenWritten(sent);
    if (endStream) this.#endLocal(stream);
    return true;
  }

  /**
   * Fast path of one small DATA frame written straight into the batch: `fill(dest, start, end)`
   * writes the payload into `dest[start … end)` and returns its length, or -1 when it needs more
   * room. Returns the payload length, or -1 when nothing was sent (no window, data waiting, no
   * room): the caller then makes the bytes itself and uses {@link sendData}.
   */
  trySendDataWith(stream: H2Stream, endStream: boolean, filler: DataFiller): number {
    if (stream.pending !== undefined || stream.localEnded || this.#phase === "closed") return -1;
    const window = Math.min(stream.sendWindow, this.#connSendWindow);
    if (window <= 0) return -1;
    const writer = this.writer;
    if (
      !endStream &&
      stream.id === this.#openDataStream &&
      writer.generation === this.#openDataGeneration &&
      writer.offset === this.#openDataEnd
    ) {
      // The batch ends with this stream's DATA frame: the payload joins it (one frame header
      // for a run of a stream's messages, up to the peer's frame size).
      const batch = writer.batch();
      const headerAt = this.#openDataHeaderAt;
      const length =
        ((batch[headerAt] as number) << 16) |
        ((batch[headerAt + 1] as number) << 8) |
        (batch[headerAt + 2] as number);
      const limit = Math.min(writer.room, window, this.#peerMaxFrameBytes - length);
      const at = writer.offset;
      const n = limit > 0 ? filler.fillData(batch, at, at + limit) : -1;
      if (n >= 0) {
        const total = length + n;
        batch[headerAt] = total >>> 16;
        batch[headerAt + 1] = (total >>> 8) & 0xff;
        batch[headerAt + 2] = total & 0xff;
        stream.sendWindow -= n;
        this.#connSendWindow -= n;
        this.#openDataEnd = at + n;
        const generation = writer.generation;
        writer.commit(n);
        if (writer.generation !== generation) this.#openDataStream = 0;
        return n;
      }
    }
    let batch = writer.batch();
    if (writer.room < FRAME_HEADER_BYTES + 64) batch = writer.reserve(FRAME_HEADER_BYTES + 64);
    const at = writer.offset;
    const limit = Math.min(writer.room - FRAME_HEADER_BYTES, window, this.#peerMaxFrameBytes);
    const n = filler.fillData(batch, at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + limit);
    if (n < 0) return -1;
    writeFrameHeader(batch, at, n, FrameType.DATA, endStream ? FrameFlag.END_STREAM : 0, stream.id);
    stream.sendWindow -= n;
    this.#connSendWindow -= n;
    if (endStream) {
      this.#openDataStream = 0;
      writer.commit(FRAME_HEADER_BYTES + n);
      this.#endLocal(stream);
      return n;
    }
    this.#openDataStream = stream.id;
    this.#openDataHeaderAt = at;
    this.#openDataEnd = at + FRAME_HEADER_BYTES + n;
    this.#openDataGeneration = writer.generation;
    writer.commit(FRAME_HEADER_BYTES + n);
    if (writer.generation !== this.#openDataGeneration) this.#openDataStream = 0;
    return n;
  }

  /** Resets a stream (RST_STREAM with `code`); its listener is not told (the caller ended it). */
  resetStream(stream: H2Stream, code: number): void {
    const open = this.#streams.get(stream.id) === stream;
    stream.remoteEnded = true;
    stream.localEnded = true;
    if (open && this.#phase !== "closed") this.#rstFrame(stream.id, code);
    this.#forget(stream);
  }

  /** The layer above took `n` bytes of the stream's DATA: credit them back to the peer. */
  consume(stream: H2Stream, n: number): void {
    if (n <= 0 || stream.remoteEnded) return;
    stream.recvUncredited += n;
    if (stream.recvUncredited >= this.#limits.streamWindowBytes >>> 1) {
      const inc = stream.recvUncredited;
      stream.recvUncredited = 0;
      stream.recvWindow += inc;
      this.#windowUpdate(stream.id, inc);
    }
  }

  /** Sends GOAWAY (no new streams; `lastStreamId` defaults to the last one the peer opened). */
  goAway(code: number = H2Code.NO_ERROR, debug = "", lastStreamId = this.#lastPeerStreamId): void {
    if (this.#phase === "closed") return;
    this.#goAwaySent = true;
    const debugBytes = Buffer.from(debug, "utf8");
    const payload = Buffer.allocUnsafe(8 + debugBytes.byteLength);
    writeU32(payload, 0, lastStreamId & MAX_WINDOW_BYTES);
    writeU32(payload, 4, code);
    debugBytes.copy(payload, 8);
    this.writer.frame(FrameType.GOAWAY, 0, 0, payload);
    this.writer.flush();
  }

  /** Sends a PING; the answer resets the keepalive timeout. */
  ping(): void {
    if (this.#phase !== "open") return;
    const payload = Buffer.alloc(8);
    this.#pingOutstanding++;
    this.writer.frame(FrameType.PING, 0, 0, payload);
  }

  /** Flushes, half-closes the socket, and destroys it if the peer has not closed within `lingerMs`. */
  close(lingerMs = 1000): void {
    if (this.#phase === "closed") return;
    this.writer.flush();
    this.#socket.end();
    const timer = setTimeout(() => this.#socket.destroy(), lingerMs);
    timer.unref?.();
  }

  /** Ends the connection now: GOAWAY with the error's code when it is an HTTP/2 error. */
  destroy(error?: Error): void {
    if (this.#phase === "closed") return;
    if (error instanceof Http2Error && !this.#goAwaySent) {
      this.goAway(error.code, error.message);
      // Half-close after the GOAWAY so that it reaches the peer behind what is still queued;
      // the socket is destroyed shortly after in any case.
      this.writer.flush();
      this.#ended(error);
      this.#socket.end();
      setTimeout(() => this.#socket.destroy(), GOAWAY_LINGER_MS).unref?.();
      return;
    }
    this.writer.flush();
    this.#ended(error);
    this.#socket.destroy();
  }

  /** Arms keepalive PINGs (both roles may). */
  startKeepalive(): void {
    const ms = this.#limits.keepaliveMs;
    if (ms <= 0 || this.#keepalive !== undefined) return;
    const tick = Math.min(ms, this.#limits.keepaliveTimeoutMs);
    this.#keepalive = setInterval(() => {
      const idle = Date.now() - this.#lastFrameAt;
      if (this.#pingOutstanding > 0 && idle >= ms + this.#limits.keepaliveTimeoutMs) {
        this.destroy(
          new Error(`keepalive PING not answered within ${this.#limits.keepaliveTimeoutMs} ms`),
        );
        return;
      }
      if (idle >= ms && this.#pingOutstanding === 0) this.ping();
    }, tick);
    this.#keepalive.unref?.();
  }

  // --- receiving ---------------------------------------------------------------------------

  /**
   * Bytes read from the socket; `transient`: `chunk` is the reader's shared buffer, valid only
   * during this call — what outlives it (a frame not yet whole, header block fragments) is
   * copied, and DATA goes to streams whose readers copy what they keep.
   */
  #onBytes(chunk: Buffer, transient: boolean): void {
    if (this.#phase === "closed") return;
    this.#lastFrameAt = Date.now();
    this.#transient = transient;
    let pos = 0;
    if (this.#dataLeft > 0) {
      pos = Math.min(this.#dataLeft, chunk.byteLength);
      try {
        this.#dataPiece(chunk, 0, pos);
      } catch (err) {
        this.#onError(err);
        return;
      }
      if (this.closed || pos === chunk.byteLength) return;
    } else if (this.#pendingBytes > 0) {
      // Joined only once the frame is whole: a frame trickled in byte by byte is copied once.
      const take = this.#pendingNeed - this.#pendingBytes;
      if (chunk.byteLength < take) {
        this.#pendingParts.push(this.#owned(chunk));
        this.#pendingBytes += chunk.byteLength;
        return;
      }
      // Only the bytes the kept piece lacks are joined to it (a frame header split across two
      // reads costs 9 bytes, not a copy of the whole read); the rest is read where it is.
      this.#pendingParts.push(chunk.subarray(0, take));
      const joined = Buffer.concat(this.#pendingParts, this.#pendingNeed);
      this.#pendingParts = [];
      this.#pendingBytes = 0;
      this.#transient = false; // the joined copy is this session's
      this.#parse(joined, 0);
      if (take < chunk.byteLength && !this.closed) this.#onBytes(chunk.subarray(take), transient);
      return;
    }
    this.#parse(chunk, pos);
  }

  /** Reads the frames of `buf` from `pos` (see {@link #onBytes}), keeping a partial one. */
  #parse(buf: Buffer, from: number): void {
    let pos = from;
    try {
      if (this.#phase === "preface") {
        const want = CLIENT_PREFACE.byteLength;
        const have = Math.min(buf.byteLength, want);
        if (buf.compare(CLIENT_PREFACE, 0, have, 0, have) !== 0)
          throw new Http2Error(H2Code.PROTOCOL_ERROR, "not an HTTP/2 client preface");
        if (buf.byteLength < want) {
          this.#keep(buf, 0, want);
          return;
        }
        pos = want;
        this.#phase = "settings";
      }
      const maxFrame = this.#limits.maxFrameBytes;
      while (buf.byteLength - pos >= FRAME_HEADER_BYTES) {
        const length =
          ((buf[pos] as number) << 16) | ((buf[pos + 1] as number) << 8) | (buf[pos + 2] as number);
        if (length > maxFrame)
          throw new Http2Error(
            H2Code.FRAME_SIZE_ERROR,
            `frame of ${length} B > SETTINGS_MAX_FRAME_SIZE ${maxFrame}`,
          );
        const end = pos + FRAME_HEADER_BYTES + length;
        const type = buf[pos + 3] as number;
        const flags = buf[pos + 4] as number;
        if (end > buf.byteLength) {
          this.#incomplete(buf, pos, length, type, flags);
          return;
        }
        const streamId = readU32(buf, pos + 5) & MAX_WINDOW_BYTES;
        pos += FRAME_HEADER_BYTES;
        this.#frame(type, flags, streamId, buf, pos, end);
        pos = end;
        if (this.closed) return;
      }
    } catch (err) {
      this.#onError(err);
      return;
    }
    if (pos < buf.byteLength) this.#keep(buf, pos, FRAME_HEADER_BYTES);
  }

  /**
   * The frame at `buf[pos …]` (payload `length` bytes) has not fully arrived. A large DATA frame
   * is taken as it arrives: checked and charged now, its payload handed on piece by piece, never
   * joined into a buffer of its own; any other frame is kept until whole.
   */
  #incomplete(buf: Buffer, pos: number, length: number, type: number, flags: number): void {
    if (
      type !== FrameType.DATA ||
      (flags & FrameFlag.PADDED) !== 0 ||
      length < DATA_PIECES_MIN_BYTES ||
      this.#phase !== "open" ||
      this.#headerBlock !== undefined
    ) {
      this.#keep(buf, pos, FRAME_HEADER_BYTES + length);
      return;
    }
    const streamId = readU32(buf, pos + 5) & MAX_WINDOW_BYTES;
    this.#dataStream = this.#dataFrameStream(streamId, length);
    this.#dataFlags = flags;
    this.#dataLeft = length;
    const at = pos + FRAME_HEADER_BYTES;
    if (at < buf.byteLength) this.#dataPiece(buf, at, buf.byteLength);
  }

  /** Keeps `buf[from …)` until `need` bytes from `from` have arrived. */
  #keep(buf: Buffer, from: number, need: number): void {
    const rest = this.#owned(from === 0 ? buf : buf.subarray(from));
    this.#pendingParts = [rest];
    this.#pendingBytes = rest.byteLength;
    this.#pendingNeed = need;
  }

  /** `bytes` to keep past this read: a copy when the read is the reader's shared buffer. */
  #owned(bytes: Buffer): Buffer {
    return this.#transient ? Buffer.from(bytes) : bytes;
  }

  #onError(err: unknown): void {
    if (err instanceof Http2Error) {
      this.destroy(err);
      return;
    }
    if (err instanceof HpackError) {
      this.destroy(new Http2Error(H2Code.COMPRESSION_ERROR, err.message));
      return;
    }
    this.destroy(new Http2Error(H2Code.INTERNAL_ERROR, messageOf(err)));
  }

  #frame(
    type: number,
    flags: number,
    streamId: number,
    buf: Buffer,
    start: number,
    end: number,
  ): void {
    if (this.#headerBlock !== undefined && type !== FrameType.CONTINUATION)
      throw new Http2Error(H2Code.PROTOCOL_ERROR, `frame type ${type} inside a header block`);
    if (
      this.#phase === "settings" &&
      (type !== FrameType.SETTINGS || (flags & FrameFlag.ACK) !== 0)
    )
      throw new Http2Error(H2Code.PROTOCOL_ERROR, "the first frame must be SETTINGS");
    switch (type) {
      case FrameType.DATA:
        this.#onDataFrame(flags, streamId, buf, start, end);
        return;
      case FrameType.HEADERS:
        this.#onHeadersFrame(flags, streamId, buf, start, end);
        return;
      case FrameType.PRIORITY:
        if (streamId === 0) throw new Http2Error(H2Code.PROTOCOL_ERROR, "PRIORITY on stream 0");
        if (end - start !== 5)
          this.#streamError(streamId, H2Code.FRAME_SIZE_ERROR, "PRIORITY of wrong size");
        return;
      case FrameType.RST_STREAM:
        this.#onRstStream(streamId, buf, start, end);
        return;
      case FrameType.SETTINGS:
        this.#onSettings(flags, streamId, buf, start, end);
        return;
      case FrameType.PUSH_PROMISE:
        throw new Http2Error(
          H2Code.PROTOCOL_ERROR,
          "PUSH_PROMISE is not allowed (push is disabled)",
        );
      case FrameType.PING:
        this.#onPing(flags, streamId, buf, start, end);
        return;
      case FrameType.GOAWAY:
        this.#onGoAway(streamId, buf, start, end);
        return;
      case FrameType.WINDOW_UPDATE:
        this.#onWindowUpdate(streamId, buf, start, end);
        return;
      case FrameType.CONTINUATION:
        this.#onContinuation(flags, streamId, buf, start, end);
        return;
      default:
        // Extension frames are ignored (RFC 9113 §5.5).
        return;
    }
  }

  /** The payload of a PADDED frame without its padding, as [start, end). */
  #unpad(
    flags: number,
    buf: Buffer,
    start: number,
    end: number,
    streamId: number,
  ): [number, number] {
    if ((flags & FrameFlag.PADDED) === 0) return [start, end];
    if (end - start < 1)
      throw new Http2Error(H2Code.FRAME_SIZE_ERROR, "PADDED frame without a pad length", 0);
    const pad = buf[start] as number;
    if (pad >= end - start)
      throw new Http2Error(
        H2Code.PROTOCOL_ERROR,
        `padding ${pad} B ≥ frame payload (stream ${streamId})`,
      );
    return [start + 1, end - pad];
  }

  /** Is `streamId` one the peer may open (its parity) and has not yet? */
  #isIdle(streamId: number): boolean {
    const peerOpens = this.role === "server" ? (streamId & 1) === 1 : (streamId & 1) === 0;
    return peerOpens ? streamId > this.#lastPeerStreamId : streamId >= this.#nextStreamId;
  }

  #onDataFrame(flags: number, streamId: number, buf: Buffer, start: number, end: number): void {
    const stream = this.#dataFrameStream(streamId, end - start);
    if (stream === undefined) return;
    const [s, e] = this.#unpad(flags, buf, start, end, streamId);
    // Padding is consumed at once; the payload when the layer above takes it.
    this.consume(stream, end - start - (e - s));
    this.#deliver(stream, buf, s, e, (flags & FrameFlag.END_STREAM) !== 0);
  }

  /** Hands `buf[start … end)` of a DATA frame to its stream (`endStream`: its last bytes). */
  #deliver(stream: H2Stream, buf: Buffer, start: number, end: number, endStream: boolean): void {
    if (endStream) stream.remoteEnded = true;
    // A plain Uint8Array view: cheaper to make than a Buffer subarray, and all gRPC needs.
    stream.listener.onData(
      stream,
      new Uint8Array(buf.buffer, buf.byteOffset + start, end - start),
      endStream,
    );
    if (endStream) this.#forgetIfClosed(stream);
  }

  /**
   * `buf[start … end)` of the DATA frame still arriving: to its stream while that is open (the
   * frame's END_STREAM with its last piece), dropped otherwise. Its flow control was charged
   * when the frame began.
   */
  #dataPiece(buf: Buffer, start: number, end: number): void {
    this.#dataLeft -= end - start;
    const last = this.#dataLeft === 0;
    const stream = this.#dataStream;
    if (last) this.#dataStream = undefined;
    if (stream === undefined || this.#streams.get(stream.id) !== stream || stream.remoteEnded)
      return;
    this.#deliver(stream, buf, start, end, last && (this.#dataFlags & FrameFlag.END_STREAM) !== 0);
  }

  /**
   * The checks and flow control of a DATA frame of `length` payload bytes on `streamId`, done
   * once its header is in: the stream its payload goes to, or undefined when it is dropped (a
   * stream error was sent, or the stream was reset recently). Throws on a connection error.
   */
  #dataFrameStream(streamId: number, length: number): H2Stream | undefined {
    if (streamId === 0) throw new Http2Error(H2Code.PROTOCOL_ERROR, "DATA on stream 0");
    if (length > this.#connRecvWindow)
      throw new Http2Error(
        H2Code.FLOW_CONTROL_ERROR,
        `DATA of ${length} B > connection window ${this.#connRecvWindow}`,
      );
    this.#connRecvWindow -= length;
    this.#creditConnection(length);
    const stream = this.#streams.get(streamId);
    if (stream === undefined || stream.remoteEnded) {
      if (this.#isIdle(streamId))
        throw new Http2Error(H2Code.PROTOCOL_ERROR, `DATA on idle stream ${streamId}`);
      // DATA the peer sent before it saw our RST_STREAM (RFC 9113 §5.4.2): dropped quietly.
      if (stream === undefined && this.#recentlyReset.has(streamId)) return undefined;
      this.#streamError(streamId, H2Code.STREAM_CLOSED, `DATA on closed stream ${streamId}`);
      return undefined;
    }
    if (!stream.headersReceived) {
      this.#streamError(
        streamId,
        H2Code.PROTOCOL_ERROR,
        `DATA before HEADERS on stream ${streamId}`,
      );
      return undefined;
    }
    if (length > stream.recvWindow) {
      this.#streamError(
        streamId,
        H2Code.FLOW_CONTROL_ERROR,
        `DATA of ${length} B > stream window ${stream.recvWindow}`,
      );
      return undefined;
    }
    stream.recvWindow -= length;
    return stream;
  }

  #creditConnection(n: number): void {
    this.#connRecvUncredited += n;
    if (this.#connRecvUncredited >= this.#limits.connectionWindowBytes >>> 1) {
      const inc = this.#connRecvUncredited;
      this.#connRecvUncredited = 0;
      this.#connRecvWindow += inc;
      this.#windowUpdate(0, inc);
    }
  }

  #onHeadersFrame(flags: number, streamId: number, buf: Buffer, start: number, end: number): void {
    if (streamId === 0) throw new Http2Error(H2Code.PROTOCOL_ERROR, "HEADERS on stream 0");
    let [s, e] = this.#unpad(flags, buf, start, end, streamId);
    if ((flags & FrameFlag.PRIORITY) !== 0) {
      if (e - s < 5)
        throw new Http2Error(H2Code.FRAME_SIZE_ERROR, "HEADERS too short for its priority");
      if ((readU32(buf, s) & MAX_WINDOW_BYTES) === streamId)
        this.#streamError(streamId, H2Code.PROTOCOL_ERROR, "stream depends on itself");
      s += 5;
    }
    if ((flags & FrameFlag.END_HEADERS) !== 0) {
      this.#headerBlockDone(streamId, flags, buf, s, e);
      return;
    }
    const part = this.#owned(buf.subarray(s, e));
    this.#headerBlock = { streamId, flags, parts: [part], bytes: e - s, frames: 1 };
    this.#checkBlockSize(this.#headerBlock.bytes, 1);
  }

  #onContinuation(flags: number, streamId: number, buf: Buffer, start: number, end: number): void {
    const block = this.#headerBlock;
    if (block === undefined || block.streamId !== streamId)
      throw new Http2Error(
        H2Code.PROTOCOL_ERROR,
        `CONTINUATION without HEADERS on stream ${streamId}`,
      );
    block.parts.push(this.#owned(buf.subarray(start, end)));
    block.bytes += end - start;
    block.frames++;
    this.#checkBlockSize(block.bytes, block.frames);
    if ((flags & FrameFlag.END_HEADERS) === 0) return;
    this.#headerBlock = undefined;
    const whole = Buffer.concat(block.parts, block.bytes);
    this.#headerBlockDone(streamId, block.flags, whole, 0, whole.byteLength);
  }

  /** CONTINUATION floods (CVE-2024-27316 family): a header block is bounded in bytes and frames. */
  #checkBlockSize(bytes: number, frames: number): void {
    if (bytes > this.#limits.maxHeaderListBytes * 2 + 1024)
      throw new Http2Error(
        H2Code.ENHANCE_YOUR_CALM,
        `header block of ${bytes} B > 2 × maxHeaderListBytes`,
      );
    if (frames > MAX_CONTINUATIONS)
      throw new Http2Error(
        H2Code.ENHANCE_YOUR_CALM,
        `header block in more than ${MAX_CONTINUATIONS} frames`,
      );
  }

  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the RFC 9113 §8.1 checks of a complete header block, per stream state
  #headerBlockDone(
    streamId: number,
    flags: number,
    buf: Uint8Array,
    start: number,
    end: number,
  ): void {
    // A server keeps a request's list (its handler reads metadata later); a client reads a
    // response's headers and trailers during the callback only, so it decodes into one array.
    if (this.role === "server") this.#fields = [];
    else this.#fields.length = 0;
    let tooLarge = false;
    try {
      this.#decoder.decode(buf, start, end, this.#emit);
    } catch (err) {
      if (!(err instanceof HpackError) || err.reason !== "header-list-too-large") throw err;
      tooLarge = true;
    }
    const fields = this.#fields;
    const endStream = (flags & FrameFlag.END_STREAM) !== 0;
    const stream = this.#streams.get(streamId);
    if (stream === undefined) {
      if (!this.#isIdle(streamId)) {
        // Closed (or refused) earlier: the block kept HPACK in sync; the stream stays closed.
        this.#streamError(streamId, H2Code.STREAM_CLOSED, `HEADERS on closed stream ${streamId}`);
        return;
      }
      if (this.role === "client")
        throw new Http2Error(
          H2Code.PROTOCOL_ERROR,
          `HEADERS opening stream ${streamId} at a client`,
        );
      if ((streamId & 1) === 0)
        throw new Http2Error(H2Code.PROTOCOL_ERROR, `a client opened even stream ${streamId}`);
      this.#lastPeerStreamId = streamId;
      if (this.#goAwaySent) {
        this.#rstFrame(streamId, H2Code.REFUSED_STREAM);
        return;
      }
      if (this.#streams.size >= this.#limits.maxConcurrentStreams) {
        this.#rstFrame(streamId, H2Code.REFUSED_STREAM);
        return;
      }
      const opened = new H2Stream(
        streamId,
        this.#peerInitialWindow,
        this.#limits.streamWindowBytes,
      );
      opened.headersReceived = true;
      if (endStream) opened.remoteEnded = true;
      this.#streams.set(streamId, opened);
      if (tooLarge) {
        this.#events.onHeadersTooLarge?.(opened);
        return;
      }
      try {
        checkFieldList(fields, "request", streamId);
      } catch (err) {
        this.#streamError(streamId, H2Code.PROTOCOL_ERROR, messageOf(err));
        return;
      }
      this.#events.onStream?.(opened, fields, endStream);
      return;
    }
    if (stream.remoteEnded) {
      this.#streamError(
        streamId,
        H2Code.STREAM_CLOSED,
        `HEADERS after END_STREAM on stream ${streamId}`,
      );
      return;
    }
    if (tooLarge) {
      this.#streamError(
        streamId,
        H2Code.PROTOCOL_ERROR,
        `header list > maxHeaderListBytes ${this.#limits.maxHeaderListBytes}`,
      );
      return;
    }
    let kind: FieldListKind = "trailers";
    if (!stream.headersReceived) {
      kind = this.role === "client" ? "response" : "request";
      // A client may see informational (1xx) headers first; gRPC servers send none.
    } else if (!endStream) {
      this.#streamError(
        streamId,
        H2Code.PROTOCOL_ERROR,
        `trailers without END_STREAM on stream ${streamId}`,
      );
      return;
    }
    try {
      checkFieldList(fields, kind, streamId);
    } catch (err) {
      this.#streamError(streamId, H2Code.PROTOCOL_ERROR, messageOf(err));
      return;
    }
    stream.headersReceived = true;
    if (endStream) stream.remoteEnded = true;
    stream.listener.onHeaders(stream, fields, endStream);
    if (endStream) this.#forgetIfClosed(stream);
  }

  #onRstStream(streamId: number, buf: Buffer, start: number, end: number): void {
    if (streamId === 0) throw new Http2Error(H2Code.PROTOCOL_ERROR, "RST_STREAM on stream 0");
    if (end - start !== 4)
      throw new Http2Error(H2Code.FRAME_SIZE_ERROR, "RST_STREAM of wrong size");
    const stream = this.#streams.get(streamId);
    if (stream === undefined) {
      if (this.#isIdle(streamId))
        throw new Http2Error(H2Code.PROTOCOL_ERROR, `RST_STREAM on idle stream ${streamId}`);
      return;
    }
    const code = readU32(buf, start);
    if (this.role === "server") this.#chargeReset();
    stream.localEnded = true;
    stream.remoteEnded = true;
    this.#forget(stream);
    stream.listener.onAbort(stream, code, true, `stream reset by the peer: ${h2CodeName(code)}`);
  }

  /** Rapid reset: a token bucket of streams the peer may reset. */
  #chargeReset(): void {
    const now = Date.now();
    this.#resetTokens = Math.min(
      RESET_BURST,
      this.#resetTokens + ((now - this.#resetStamp) * RESETS_PER_SECOND) / 1000,
    );
    this.#resetStamp = now;
    this.#resetTokens -= 1;
    if (this.#resetTokens < 0)
      throw new Http2Error(
        H2Code.ENHANCE_YOUR_CALM,
        `more than ${RESET_BURST} streams reset by the peer in a burst`,
      );
  }

  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one branch per RFC 9113 §6.5.2 setting and its bounds
  #onSettings(flags: number, streamId: number, buf: Buffer, start: number, end: number): void {
    if (streamId !== 0) throw new Http2Error(H2Code.PROTOCOL_ERROR, "SETTINGS on a stream");
    if ((flags & FrameFlag.ACK) !== 0) {
      if (end !== start)
        throw new Http2Error(H2Code.FRAME_SIZE_ERROR, "SETTINGS ACK with a payload");
      return;
    }
    if ((end - start) % 6 !== 0)
      throw new Http2Error(H2Code.FRAME_SIZE_ERROR, "SETTINGS payload not a multiple of 6");
    let initialWindow = -1;
    for (let at = start; at < end; at += 6) {
      const id = ((buf[at] as number) << 8) | (buf[at + 1] as number);
      const value = readU32(buf, at + 2);
      switch (id) {
        case SettingId.HEADER_TABLE_SIZE:
          this.#encoder.setPeerMaxTableBytes(Math.min(value, 4096));
          break;
        case SettingId.ENABLE_PUSH:
          if (value > 1) throw new Http2Error(H2Code.PROTOCOL_ERROR, `ENABLE_PUSH ${value}`);
          if (this.role === "client" && value !== 0)
            throw new Http2Error(H2Code.PROTOCOL_ERROR, "a server sent ENABLE_PUSH 1");
          break;
        case SettingId.MAX_CONCURRENT_STREAMS:
          this.#peerMaxConcurrent = value;
          break;
        case SettingId.INITIAL_WINDOW_SIZE:
          if (value > MAX_WINDOW_BYTES)
            throw new Http2Error(
              H2Code.FLOW_CONTROL_ERROR,
              `INITIAL_WINDOW_SIZE ${value} > 2^31 − 1`,
            );
          // Applied once per frame (below): a frame repeating it costs one pass over the streams.
          initialWindow = value;
          break;
        case SettingId.MAX_FRAME_SIZE:
          if (value < MIN_MAX_FRAME_BYTES || value > MAX_MAX_FRAME_BYTES)
            throw new Http2Error(H2Code.PROTOCOL_ERROR, `MAX_FRAME_SIZE ${value} out of range`);
          this.#peerMaxFrameBytes = value;
          break;
        default:
          // MAX_HEADER_LIST_SIZE is advisory; unknown settings are ignored (RFC 9113 §6.5.2).
          break;
      }
    }
    if (initialWindow >= 0) this.#setPeerInitialWindow(initialWindow);
    this.#controlBacklogCheck();
    this.writer.frame(FrameType.SETTINGS, FrameFlag.ACK, 0);
    if (this.#phase === "settings") {
      this.#phase = "open";
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#events.onReady?.();
    }
  }

  /** The peer's SETTINGS_INITIAL_WINDOW_SIZE changed: every stream's send window moves by the difference. */
  #setPeerInitialWindow(value: number): void {
    const delta = value - this.#peerInitialWindow;
    if (delta === 0) return;
    this.#peerInitialWindow = value;
    for (const stream of this.#streams.values()) {
      stream.sendWindow += delta;
      if (stream.sendWindow > MAX_WINDOW_BYTES)
        throw new Http2Error(
          H2Code.FLOW_CONTROL_ERROR,
          "INITIAL_WINDOW_SIZE overflows a stream window",
        );
    }
    if (delta > 0) this.#resumeBlocked();
  }

  /** SETTINGS/PING floods: answers are refused once the peer leaves too much of ours unread. */
  /**
   * Counts one answer the peer asked for (PING or SETTINGS ACK, RST_STREAM) and throws
   * ENHANCE_YOUR_CALM once more than {@link CONTROL_BACKLOG_BYTES} of them were queued since a
   * socket write last completed — a peer that asks and does not read. DATA queued behind a
   * slow reader does not count: that is flow control's business.
   */
  #controlBacklogCheck(frameBytes = 17): void {
    const writer = this.writer;
    if (writer.completedWrites !== this.#controlWritesSeen || writer.queuedBytes === 0) {
      this.#controlWritesSeen = writer.completedWrites;
      this.#controlQueued = 0;
    }
    this.#controlQueued += frameBytes;
    if (this.#controlQueued > CONTROL_BACKLOG_BYTES && writer.queuedBytes > CONTROL_BACKLOG_BYTES)
      throw new Http2Error(H2Code.ENHANCE_YOUR_CALM, "the peer does not read what it asks for");
  }

  #onPing(flags: number, streamId: number, buf: Buffer, start: number, end: number): void {
    if (streamId !== 0) throw new Http2Error(H2Code.PROTOCOL_ERROR, "PING on a stream");
    if (end - start !== 8) throw new Http2Error(H2Code.FRAME_SIZE_ERROR, "PING of wrong size");
    if ((flags & FrameFlag.ACK) !== 0) {
      if (this.#pingOutstanding > 0) this.#pingOutstanding--;
      return;
    }
    this.#controlBacklogCheck();
    this.writer.frame(FrameType.PING, FrameFlag.ACK, 0, buf, start, end);
  }

  #onGoAway(streamId: number, buf: Buffer, start: number, end: number): void {
    if (streamId !== 0) throw new Http2Error(H2Code.PROTOCOL_ERROR, "GOAWAY on a stream");
    if (end - start < 8) throw new Http2Error(H2Code.FRAME_SIZE_ERROR, "GOAWAY too short");
    const lastStreamId = readU32(buf, start) & MAX_WINDOW_BYTES;
    const code = readU32(buf, start + 4);
    this.#goAwayReceived = true;
    // Streams this side opened above lastStreamId were not processed: safe to retry elsewhere.
    for (const stream of [...this.#streams.values()]) {
      const ours = this.role === "client" ? (stream.id & 1) === 1 : (stream.id & 1) === 0;
      if (ours && stream.id > lastStreamId) {
        stream.localEnded = true;
        stream.remoteEnded = true;
        this.#forget(stream);
        stream.listener.onAbort(
          stream,
          H2Code.REFUSED_STREAM,
          true,
          `GOAWAY (${h2CodeName(code)}) before the stream was processed`,
        );
      }
    }
    this.#events.onGoAway?.(lastStreamId, code);
  }

  #onWindowUpdate(streamId: number, buf: Buffer, start: number, end: number): void {
    if (end - start !== 4)
      throw new Http2Error(H2Code.FRAME_SIZE_ERROR, "WINDOW_UPDATE of wrong size");
    const inc = readU32(buf, start) & MAX_WINDOW_BYTES;
    if (streamId === 0) {
      if (inc === 0)
        throw new Http2Error(H2Code.PROTOCOL_ERROR, "WINDOW_UPDATE of 0 on the connection");
      this.#connSendWindow += inc;
      if (this.#connSendWindow > MAX_WINDOW_BYTES)
        throw new Http2Error(H2Code.FLOW_CONTROL_ERROR, "connection window over 2^31 − 1");
      this.#resumeBlocked();
      return;
    }
    const stream = this.#streams.get(streamId);
    if (stream === undefined) {
      if (this.#isIdle(streamId))
        throw new Http2Error(H2Code.PROTOCOL_ERROR, `WINDOW_UPDATE on idle stream ${streamId}`);
      return;
    }
    if (inc === 0) {
      this.#streamError(streamId, H2Code.PROTOCOL_ERROR, "WINDOW_UPDATE of 0");
      return;
    }
    stream.sendWindow += inc;
    if (stream.sendWindow > MAX_WINDOW_BYTES) {
      this.#streamError(streamId, H2Code.FLOW_CONTROL_ERROR, "stream window over 2^31 − 1");
      return;
    }
    if (stream.pending !== undefined) this.#drainPending(stream);
  }

  /** Sends what waits for window, on every blocked stream. */
  #resumeBlocked(): void {
    for (const stream of [...this.#blocked]) {
      if (this.#connSendWindow <= 0) return;
      this.#drainPending(stream);
    }
  }

  #drainPending(stream: H2Stream): void {
    const pending = stream.pending;
    if (pending === undefined) return;
    stream.pending = undefined;
    this.#blocked.delete(stream);
    // Each send queues itself again (behind the first that finds no window): order is kept.
    for (const item of pending) {
      if (item.trailers !== undefined) this.sendHeaders(stream, item.trailers, true);
      else
        this.sendData(
          stream,
          item.bytes as Uint8Array,
          item.start,
          item.end,
          item.endStream,
          item.sent,
        );
    }
    if (stream.pending === undefined) stream.listener.onWritable?.(stream);
  }

  // --- sending helpers ---------------------------------------------------------------------

  #sendSettings(): void {
    const l = this.#limits;
    const settings: [number, number][] = [
      [SettingId.MAX_CONCURRENT_STREAMS, l.maxConcurrentStreams],
      [SettingId.INITIAL_WINDOW_SIZE, l.streamWindowBytes],
      [SettingId.MAX_FRAME_SIZE, l.maxFrameBytes],
      [SettingId.MAX_HEADER_LIST_SIZE, l.maxHeaderListBytes],
    ];
    if (this.role === "client") settings.unshift([SettingId.ENABLE_PUSH, 0]);
    const payload = Buffer.allocUnsafe(settings.length * 6);
    settings.forEach(([id, value], i) => {
      payload.writeUInt16BE(id, i * 6);
      payload.writeUInt32BE(value, i * 6 + 2);
    });
    this.writer.frame(FrameType.SETTINGS, 0, 0, payload);
  }

  #windowUpdate(streamId: number, inc: number): void {
    const writer = this.writer;
    const batch = writer.reserve(FRAME_HEADER_BYTES + 4);
    const at = writer.offset;
    writeFrameHeader(batch, at, 4, FrameType.WINDOW_UPDATE, 0, streamId);
    writeU32(batch, at + FRAME_HEADER_BYTES, inc);
    writer.commit(FRAME_HEADER_BYTES + 4);
  }

  /** Remembers that this side reset `streamId` (the last 1024 such ids). */
  #remember(streamId: number): void {
    if (this.#recentlyReset.has(streamId)) return;
    this.#recentlyReset.add(streamId);
    this.#resetOrder.push(streamId);
    if (this.#resetOrder.length > 1024)
      this.#recentlyReset.delete(this.#resetOrder.shift() as number);
  }

  #rstFrame(streamId: number, code: number): void {
    this.#remember(streamId);
    this.#controlBacklogCheck();
    const writer = this.writer;
    const batch = writer.reserve(FRAME_HEADER_BYTES + 4);
    const at = writer.offset;
    writeFrameHeader(batch, at, 4, FrameType.RST_STREAM, 0, streamId);
    writeU32(batch, at + FRAME_HEADER_BYTES, code);
    writer.commit(FRAME_HEADER_BYTES + 4);
  }

  /** A stream error on `streamId`: RST_STREAM, and its listener (if any) is told. */
  #streamError(streamId: number, code: number, message: string): void {
    // A peer that makes this side reset streams (MadeYouReset, CVE-2025-8671) pays from the
    // same budget as one that resets them itself.
    if (this.role === "server") this.#chargeReset();
    this.#rstFrame(streamId, code);
    const stream = this.#streams.get(streamId);
    if (stream === undefined) return;
    stream.localEnded = true;
    stream.remoteEnded = true;
    this.#forget(stream);
    stream.listener.onAbort(stream, code, false, message);
  }

  #endLocal(stream: H2Stream): void {
    stream.localEnded = true;
    this.#forgetIfClosed(stream);
  }

  #forgetIfClosed(stream: H2Stream): void {
    if (stream.localEnded && stream.remoteEnded) this.#forget(stream);
  }

  #forget(stream: H2Stream): void {
    if (this.#streams.get(stream.id) !== stream) return;
    this.#streams.delete(stream.id);
    this.#blocked.delete(stream);
    stream.pending = undefined;
    const ours = this.role === "client" ? (stream.id & 1) === 1 : (stream.id & 1) === 0;
    if (ours) {
      this.#localOpen--;
      this.#events.onStreamClosed?.();
    }
  }

  #ended(error: Error | undefined): void {
    if (this.#phase === "closed") return;
    this.#phase = "closed";
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#keepalive !== undefined) clearInterval(this.#keepalive);
    this.writer.close();
    const streams = [...this.#streams.values()];
    this.#streams.clear();
    this.#blocked.clear();
    const why = error === undefined ? "connection closed" : `connection closed: ${error.message}`;
    for (const stream of streams) stream.listener.onAbort(stream, -1, false, why);
    this.#events.onClose(error);
  }
}
