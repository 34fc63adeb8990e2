/**
 * A {@link Channel} over a connected stream socket (Unix or TCP): frame v1 with the connection
 * preface of PROTOCOL.md §4.
 *
 * Sending: frames below {@link LARGE_PAYLOAD_BYTES} are encoded into a batch buffer that is
 * written with one `socket.write` per tick (a `process.nextTick` flush, which runs after the
 * current callback and every microtask it queued) or when the batch is full: many small frames
 * cost few syscalls, and a lone reply waits for no trip around the event loop. The batch buffer
 * is reused when the kernel took the whole write synchronously, and handed to the socket (a new
 * one allocated) when it did not. A larger payload is written as its own buffer between its
 * header and trailer, without copying: do not modify a payload after `send`.
 */
import type net from "node:net";
import {
  type Channel,
  type ChannelHandler,
  Code,
  codeName,
  NearwireError,
  type Peer,
} from "@nearwire/core";
import { FrameType } from "@nearwire/core/protocol";
import { checkSend, isSendableType } from "@nearwire/core/transport-kit";
import {
  crc32cRange,
  decodeGoAway,
  decodeHello,
  encodeFrame,
  encodeFrameInto,
  encodeGoAway,
  encodeHello,
  FEATURE_BATCH,
  FRAME_HEADER_BYTES,
  FRAME_OVERHEAD_BYTES,
  FRAME_TRAILER_BYTES,
  FrameDecoder,
  frameChecksum,
  PROTOCOL_VERSION,
  writeFrameHeader,
  writeFrameTrailer,
} from "@nearwire/frame";
import { sniffForeignProtocol, sniffWants } from "@nearwire/socket";

/** Largest first-frame payload a server accepts before the preface completes (bytes). */
export const PREFACE_MAX_PAYLOAD_BYTES = 64;

/** Payloads of at least this many bytes are written as their own buffer, not copied (16 KiB). */
export const LARGE_PAYLOAD_BYTES = 16 * 1024;

/** Size of the send batch buffer (64 KiB). */
export const BATCH_BYTES = 64 * 1024;

/**
 * A batch is written as soon as it holds this many bytes, without waiting for the end of the
 * tick: while this side is still working through a burst, the peer already gets the first
 * answers, so both processes work at once instead of taking turns with whole bursts. Only
 * while the kernel takes writes at once (nothing queued in the socket): under backpressure
 * batches grow to full size instead. Within one run of sends (until the tick's flush) the
 * threshold doubles after each early write, up to {@link EARLY_FLUSH_MAX_BYTES}: a burst of
 * replies still starts the peer after 2 KiB, while a long stream (a server-streaming handler that
 * never yields to the event loop) soon writes 32 KiB per syscall instead of 2 KiB.
 */
export const EARLY_FLUSH_BYTES = 2048;

/**
 * The early-write threshold stops doubling here, half the batch: a batch is then written before
 * it fills, so a frame never has to find the batch too full for it (a codec's `encodeInto` that
 * runs out of room may have to give up and be retried).
 */
export const EARLY_FLUSH_MAX_BYTES = BATCH_BYTES / 2;

/** After sending GOAWAY, how long to wait for the peer to close before destroying (ms). */
export const GOAWAY_LINGER_MS = 1000;

/** Options of a {@link SocketChannel}; all required here (the provider fills defaults). */
export interface SocketChannelOptions {
  /** Largest payload this side accepts (announced in HELLO), bytes. */
  maxFrameBytes: number;
  /** Preface deadline, ms. */
  handshakeTimeoutMs: number;
  /** `send` returns false above this many queued bytes. */
  highWaterMarkBytes: number;
  /** How long a clean `close()` waits for the peer to close its side before destroying, ms. */
  closeTimeoutMs: number;
  /** How long one received frame may stay incomplete, ms (0: no limit). */
  frameTimeoutMs: number;
  /**
   * Announce in the preface that this side's RPC engine takes BATCH frames (HELLO features,
   * PROTOCOL.md §4.1). A server announces only in answer to a client's features field.
   */
  batches: boolean;
  /** Peer description for logs. */
  peer: string;
  /** Server side: the peer read on accept (`SO_PEERCRED`), handed to handlers as `ctx.peer`. */
  peerCredentials?: Peer;
}

type State = "preface" | "open" | "closed";

/**
 * A Channel over a `net.Socket`. Create with {@link SocketChannel.connect} (client) or
 * {@link SocketChannel.accept} (server); both resolve once the preface has completed.
 */
export class SocketChannel implements Channel {
  readonly transientPayloads = false;
  readonly peer: string;
  readonly peerCredentials: Peer | undefined;
  readonly #socket: net.Socket;
  readonly #options: SocketChannelOptions;
  readonly #role: "client" | "server";
  readonly #decoder: FrameDecoder;
  #state: State = "preface";
  /** The peer's first bytes until they can be judged (`sniffWants`, transport mismatch); then undefined. */
  #head: Buffer | undefined = Buffer.alloc(0);
  #peerMaxFrameBytes = 0;
  #acceptsBatches = false;
  #peerAcceptsBatches = false;
  #handler: ChannelHandler | undefined;
  #userPaused = false;
  #timer: NodeJS.Timeout | undefined;
  #frameTimer: NodeJS.Timeout | undefined;
  /** The decoder's `partialStarts` when #frameTimer was armed. */
  #frameSeq = 0;
  /** Allocated at the first send (an idle connection holds none), again after a queued write. */
  #batch: Buffer = NO_BATCH;
  #batchLength = 0;
  #flushScheduled = false;
  /** The batch length that triggers an early write now (doubles within a run of sends). */
  #earlyFlushAt = EARLY_FLUSH_BYTES;
  /** Set once the channel has ended: `null` for a clean close, else the error. */
  #closeResult: NearwireError | null | undefined;
  #notified = false;
  #writeWaiters: (() => void)[] = [];
  readonly #onWritten = (): void => {
    const waiters = this.#writeWaiters;
    if (waiters.length === 0) return;
    this.#writeWaiters = [];
    for (const wake of waiters) wake();
  };
  #ready: { resolve: () => void; reject: (err: NearwireError) => void };
  readonly #readyPromise: Promise<void>;
  readonly #socketClosed: Promise<void>;

  private constructor(
    socket: net.Socket,
    role: "client" | "server",
    options: SocketChannelOptions,
  ) {
    this.#socket = socket;
    this.#role = role;
    this.#options = options;
    this.peer = options.peer;
    this.peerCredentials = options.peerCredentials;
    let ready!: { resolve: () => void; reject: (err: NearwireError) => void };
    this.#readyPromise = new Promise<void>((resolve, reject) => {
      ready = { resolve, reject };
    });
    this.#ready = ready;
    this.#socketClosed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    this.#decoder = new FrameDecoder({
      maxPayloadBytes: role === "server" ? PREFACE_MAX_PAYLOAD_BYTES : options.maxFrameBytes,
      onFrame: (type, payload) => this.#onFrame(type, payload),
    });
    socket.on("data", (chunk: Buffer) => this.#onData(chunk));
    socket.on("error", (err) => this.#peerGone(NearwireError.from(err, Code.Unavailable)));
    socket.on("close", () => {
      this.#peerGone(undefined);
      this.#onWritten();
    });
    this.#timer = setTimeout(() => this.#handshakeTimeout(), options.handshakeTimeoutMs);
    if (role === "client") {
      this.#acceptsBatches = options.batches;
      socket.write(
        encodeFrame(
          FrameType.Hello,
          encodeHello({
            version: PROTOCOL_VERSION,
            maxFrameBytes: options.maxFrameBytes,
            ...(options.batches ? { features: FEATURE_BATCH } : {}),
          }),
        ),
      );
    }
  }

  /**
   * Runs the client side of the preface on a socket (connected or still connecting). Resolves
   * with the open channel after the server's HELLO; rejects with the server's GOAWAY code,
   * UNAVAILABLE when the socket fails or the handshake times out, INVALID_ARGUMENT
   * (`bad-preface`) or FAILED_PRECONDITION (`version-mismatch`) for a bad answer.
   */
  static async connect(socket: net.Socket, options: SocketChannelOptions): Promise<SocketChannel> {
    const channel = new SocketChannel(socket, "client", options);
    await channel.#readyPromise;
    return channel;
  }

  /**
   * Runs the server side of the preface on an accepted socket. Resolves with the open channel
   * after answering the client's HELLO; rejects (after sending GOAWAY and closing) otherwise.
   */
  static async accept(socket: net.Socket, options: SocketChannelOptions): Promise<SocketChannel> {
    const channel = new SocketChannel(socket, "server", options);
    await channel.#readyPromise;
    return channel;
  }

  get maxPayloadBytes(): number {
    return Math.min(this.#options.maxFrameBytes, this.#peerMaxFrameBytes);
  }

  get closed(): boolean {
    return this.#state === "closed";
  }

  get acceptsBatches(): boolean {
    return this.#acceptsBatches;
  }

  get peerAcceptsBatches(): boolean {
    return this.#peerAcceptsBatches;
  }

  start(handler: ChannelHandler): void {
    if (this.#handler !== undefined)
      throw new NearwireError(Code.FailedPrecondition, "channel already started");
    this.#handler = handler;
    process.nextTick(() => {
      if (this.#closeResult !== undefined) {
        this.#notify();
        return;
      }
      if (!this.#userPaused) this.#resumeDelivery();
    });
  }

  send(type: number, payload: Uint8Array): boolean {
    const n = payload.length;
    checkSend(this.#state !== "open", type, n, this.maxPayloadBytes, this.peer);
    if (n >= LARGE_PAYLOAD_BYTES) {
      this.#flush();
      const edges = Buffer.allocUnsafe(FRAME_OVERHEAD_BYTES);
      writeFrameHeader(edges, 0, type, n);
      writeFrameTrailer(edges, FRAME_HEADER_BYTES, frameChecksum(type, payload));
      const socket = this.#socket;
      socket.cork();
      socket.write(edges.subarray(0, FRAME_HEADER_BYTES));
      socket.write(payload);
      socket.write(edges.subarray(FRAME_HEADER_BYTES), this.#onWritten);
      socket.uncork();
    } else {
      if (this.#batchLength + n + FRAME_OVERHEAD_BYTES > this.#batch.length) this.#makeRoom();
      this.#batchLength += encodeFrameInto(this.#batch, this.#batchLength, type, payload);
      this.#afterAppend();
    }
    return this.#queuedBytes() < this.#options.highWaterMarkBytes;
  }

  /**
   * Zero-copy send: `fill` writes the payload straight into the batch buffer behind the frame
   * header (`dest` is the batch, writable to its end; at most `limit` bytes are used). When
   * it does not fit and the batch holds earlier frames, they are flushed and `fill` runs once
   * more on the empty batch. Returns false when nothing was sent (closed, bad type, no room,
   * `fill` gave up): the caller then uses {@link send}, which also reports errors.
   */
  sendWith(
    type: number,
    fill: (dest: Uint8Array, offset: number, limit: number) => number,
  ): boolean {
    if (this.#state !== "open" || !isSendableType(type)) return false;
    for (;;) {
      const batch = this.#batch;
      const start = this.#batchLength;
      const room = batch.length - start - FRAME_HEADER_BYTES;
      const limit = Math.min(room, this.maxPayloadBytes + FRAME_TRAILER_BYTES);
      const n = limit > FRAME_TRAILER_BYTES ? fill(batch, start + FRAME_HEADER_BYTES, limit) : -1;
      if (n >= 0 && n + FRAME_TRAILER_BYTES <= limit) {
        writeFrameHeader(batch, start, type, n);
        const end = start + FRAME_HEADER_BYTES + n;
        writeFrameTrailer(batch, end, crc32cRange(batch, start + 4, end));
        this.#batchLength = end + FRAME_TRAILER_BYTES;
        this.#afterAppend();
        return true;
      }
      if (start === 0) {
        if (batch.length !== 0) return false;
        this.#batch = Buffer.allocUnsafeSlow(BATCH_BYTES);
        continue;
      }
      this.#flush();
    }
  }

  get backpressured(): boolean {
    return this.#queuedBytes() >= this.#options.highWaterMarkBytes;
  }

  async drained(): Promise<void> {
    while (this.#state === "open" && this.#queuedBytes() >= this.#options.highWaterMarkBytes) {
      this.#flush();
      if (this.#socket.writableLength === 0) return;
      // Every socket.write carries #onWritten: the next completed write (or the close) wakes
      // us. Unlike 'drain', this also works below the socket's own 16 KiB high-water mark.
      await new Promise<void>((resolve) => this.#writeWaiters.push(resolve));
    }
  }

  pause(): void {
    this.#userPaused = true;
    this.#decoder.pause();
    if (this.#state === "open") this.#socket.pause();
  }

  resume(): void {
    if (!this.#userPaused) return;
    this.#userPaused = false;
    if (this.#handler !== undefined && this.#state === "open") this.#resumeDelivery();
  }

  close(error?: NearwireError): Promise<void> {
    if (error !== undefined) {
      this.#fail(error, true);
      return this.#socketClosed;
    }
    if (this.#state === "closed") return this.#socketClosed;
    this.#state = "closed";
    this.#closeResult = null;
    this.#clearTimer();
    this.#flush();
    this.#socket.end();
    // Keep reading (and discarding) so that the peer's FIN is seen and the socket closes.
    this.#socket.resume();
    this.#timer = setTimeout(() => this.#socket.destroy(), this.#options.closeTimeoutMs);
    process.nextTick(() => this.#notify());
    return this.#socketClosed;
  }

  #queuedBytes(): number {
    return this.#socket.writableLength + this.#batchLength;
  }

  /** A frame was appended to the batch: write it early (see {@link EARLY_FLUSH_BYTES}) or at the tick's end. */
  #afterAppend(): void {
    if (this.#batchLength >= this.#earlyFlushAt && this.#socket.writableLength === 0) {
      this.#flush();
      if (this.#earlyFlushAt < EARLY_FLUSH_MAX_BYTES) this.#earlyFlushAt *= 2;
    }
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    process.nextTick(this.#flushNow);
  }

  readonly #flushNow = (): void => {
    this.#flushScheduled = false;
    this.#earlyFlushAt = EARLY_FLUSH_BYTES;
    this.#flush();
  };

  #flush(): void {
    if (this.#batchLength === 0) return;
    const socket = this.#socket;
    socket.write(this.#batch.subarray(0, this.#batchLength), this.#onWritten);
    this.#batchLength = 0;
    // The kernel took it all synchronously: the buffer is free again. Otherwise the socket
    // still references it, so the next send takes a new one (#makeRoom).
    if (socket.writableLength > 0) this.#batch = NO_BATCH;
  }

  /** Flushes the batch and makes sure there is one to encode into. */
  #makeRoom(): void {
    this.#flush();
    if (this.#batch.length === 0) this.#batch = Buffer.allocUnsafeSlow(BATCH_BYTES);
  }

  #resumeDelivery(): void {
    try {
      this.#decoder.resume();
    } catch (err) {
      this.#onStreamError(err);
      return;
    }
    if (!this.#userPaused && this.#state === "open") this.#socket.resume();
    if (this.#frameTimer === undefined && this.#decoder.inFrame) this.#armFrameTimer();
  }

  #onData(chunk: Buffer): void {
    if (this.#state === "closed") return;
    let data = chunk;
    if (this.#head !== undefined) {
      // The peer's first bytes are held until they can be judged (§4.2): another transport's
      // protocol is named, not read as frames.
      const head = this.#head.length === 0 ? chunk : Buffer.concat([this.#head, chunk]);
      if (head.length < sniffWants(head, this.#role, PREFACE_MAX_PAYLOAD_BYTES)) {
        this.#head = Buffer.from(head);
        return;
      }
      this.#head = undefined;
      if (this.#foreign(head)) return;
      data = head;
    }
    try {
      // A plain Uint8Array view of the chunk: the frames cut from it are then made by the
      // built-in TypedArray subarray, not Buffer's (about 100 ns less per frame).
      this.#decoder.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    } catch (err) {
      this.#onStreamError(err);
      return;
    }
    if (this.#frameTimer === undefined && this.#decoder.inFrame) this.#armFrameTimer();
  }

  /** Bounds how long a received frame may stay incomplete (checked every frameTimeoutMs). */
  #armFrameTimer(): void {
    const ms = this.#options.frameTimeoutMs;
    if (ms === 0 || this.#state !== "open") return;
    this.#frameSeq = this.#decoder.partialStarts;
    this.#frameTimer = setTimeout(this.#onFrameTimer, ms);
  }

  readonly #onFrameTimer = (): void => {
    this.#frameTimer = undefined;
    const decoder = this.#decoder;
    if (this.#state !== "open" || !decoder.inFrame) return;
    // Paused by this side (not the peer's doing), or a newer frame than the one timed: again.
    if (this.#userPaused || decoder.paused || decoder.partialStarts !== this.#frameSeq) {
      this.#armFrameTimer();
      return;
    }
    this.#fail(
      new NearwireError(
        Code.DeadlineExceeded,
        `frame from ${this.peer} incomplete after ${this.#options.frameTimeoutMs} ms (${decoder.bufferedBytes} B in)`,
        { reason: "frame-timeout" },
      ),
      true,
    );
  };

  #onStreamError(err: unknown): void {
    let error = NearwireError.from(err, Code.Internal);
    if (this.#state === "preface" && error.reason !== "version-mismatch") {
      // Whatever goes wrong before the preface completes means the peer does not speak nearwire.
      error = new NearwireError(
        Code.InvalidArgument,
        `bad preface from ${this.peer}: ${error.message}`,
        {
          reason: "bad-preface",
          cause: error,
        },
      );
    }
    this.#fail(error, true);
  }

  #onFrame(type: number, payload: Uint8Array): void {
    if (this.#state === "open") {
      if (type >= FrameType.Request) {
        (this.#handler as ChannelHandler).onFrame(type, payload);
        return;
      }
      if (type === FrameType.GoAway) {
        this.#onGoAway(payload);
        return;
      }
      throw new NearwireError(
        Code.Internal,
        type === FrameType.Hello
          ? "HELLO after the preface"
          : `frame type 0x${type.toString(16)} is reserved`,
        { reason: type === FrameType.Hello ? "protocol-violation" : "unknown-frame-type" },
      );
    }
    if (this.#state !== "preface") return;
    if (type === FrameType.GoAway && this.#role === "client") {
      this.#onGoAway(payload);
      return;
    }
    if (type !== FrameType.Hello) {
      throw new NearwireError(
        Code.InvalidArgument,
        `first frame has type 0x${type.toString(16)}, not HELLO`,
        {
          reason: "bad-preface",
        },
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
    this.#peerMaxFrameBytes = hello.maxFrameBytes;
    this.#peerAcceptsBatches = ((hello.features ?? 0) & FEATURE_BATCH) !== 0;
    if (this.#role === "server") {
      this.#decoder.setMaxPayloadBytes(this.#options.maxFrameBytes);
      // The features field only answers a client's (PROTOCOL.md §4.1): a client that sent
      // none gets the 16-byte HELLO it has always got.
      let features: number | undefined;
      if (hello.features !== undefined) {
        features = this.#options.batches ? FEATURE_BATCH : 0;
        this.#acceptsBatches = this.#options.batches;
      }
      this.#socket.write(
        encodeFrame(
          FrameType.Hello,
          encodeHello({
            version: PROTOCOL_VERSION,
            maxFrameBytes: this.#options.maxFrameBytes,
            ...(features === undefined ? {} : { features }),
          }),
        ),
      );
    }
    this.#clearTimer();
    this.#state = "open";
    // Hold later frames until start() (or resume() after a pause).
    this.#decoder.pause();
    this.#socket.pause();
    this.#ready.resolve();
  }

  #onGoAway(payload: Uint8Array): void {
    let goAway: { code: number; message: string };
    try {
      goAway = decodeGoAway(payload);
    } catch {
      goAway = { code: Code.Unknown, message: "empty GOAWAY" };
    }
    if (goAway.code === Code.OK && this.#state === "open") {
      this.close();
      return;
    }
    let code = goAway.code <= 16 ? (goAway.code as Code) : Code.Unknown;
    if (code === Code.OK) code = Code.Unavailable;
    this.#fail(
      new NearwireError(
        code,
        `peer ${this.peer} sent GOAWAY ${codeName(goAway.code)}: ${goAway.message}`,
      ),
      false,
    );
  }

  #handshakeTimeout(): void {
    this.#timer = undefined;
    if (this.#state !== "preface") return;
    this.#fail(
      new NearwireError(
        Code.Unavailable,
        `preface with ${this.peer} not complete after ${this.#options.handshakeTimeoutMs} ms`,
      ),
      this.#role === "server",
    );
  }

  /**
   * Judges the peer's first bytes: true (and the channel failed with FAILED_PRECONDITION
   * `transport-mismatch`) when they are another protocol's (PROTOCOL.md §4.2).
   */
  #foreign(head: Buffer): boolean {
    const foreign = sniffForeignProtocol(head, this.#role);
    if (foreign === undefined) return false;
    if (this.#role === "client") {
      const use = foreign.package === undefined ? "" : `: connect with ${foreign.package}`;
      this.#fail(
        new NearwireError(
          Code.FailedPrecondition,
          `the server at ${this.peer} speaks ${foreign.name}, not nearwire frames${use}`,
          { reason: "transport-mismatch" },
        ),
        false,
      );
      return true;
    }
    const message = `this is a @nearwire/uds server (nearwire frames); the client speaks ${foreign.name}${foreign.package === undefined ? "" : ` (a ${foreign.package} client?)`}`;
    const error = new NearwireError(Code.FailedPrecondition, message, {
      reason: "transport-mismatch",
    });
    // A shm-ring client reads the answer as its own handshake's error frame (§6.1).
    const farewell = foreign.package === "@nearwire/shm-ring" ? shmErrorFrame(error) : undefined;
    this.#fail(error, true, farewell);
    return true;
  }

  /**
   * Ends the channel with an error: GOAWAY (when `tell`; `farewell` instead when given), FIN,
   * and destroy after a linger.
   */
  #fail(error: NearwireError, tell: boolean, farewell?: Uint8Array): void {
    if (this.#state === "closed") return;
    const wasPreface = this.#state === "preface";
    this.#state = "closed";
    this.#closeResult = error;
    this.#clearTimer();
    const socket = this.#socket;
    if (tell && socket.writable) {
      // Frames queued before the error go first: GOAWAY is the last frame (PROTOCOL.md §4.3).
      this.#flush();
      socket.write(
        farewell ?? encodeFrame(FrameType.GoAway, encodeGoAway(error.code, error.message)),
      );
      socket.end();
      socket.resume();
      this.#timer = setTimeout(() => socket.destroy(), GOAWAY_LINGER_MS);
    } else {
      socket.destroy();
    }
    this.#batchLength = 0;
    if (wasPreface) this.#ready.reject(error);
    else this.#notify();
  }

  /** The socket errored or closed. */
  #peerGone(error: NearwireError | undefined): void {
    if (this.#state === "closed") {
      if (error === undefined) this.#clearTimer();
      return;
    }
    this.#fail(
      error ??
        new NearwireError(Code.Unavailable, `peer ${this.peer} closed the connection`, {
          reason: "peer-closed",
        }),
      false,
    );
  }

  #notify(): void {
    if (this.#notified || this.#handler === undefined || this.#closeResult === undefined) return;
    this.#notified = true;
    this.#handler.onClose(this.#closeResult ?? undefined);
  }

  #clearTimer(): void {
    if (this.#frameTimer !== undefined) {
      clearTimeout(this.#frameTimer);
      this.#frameTimer = undefined;
    }
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }
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

/** The batch of a channel that has nothing to send yet. */
const NO_BATCH = Buffer.alloc(0);
