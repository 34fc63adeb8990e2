/**
 * A {@link Channel} over a connected stream socket (Unix or TCP): frame v1 with the connection
 * preface of PROTOCOL.md §4. The channel keeps the lifecycle (preface, open, closed) and the
 * receive side; sending is its {@link BatchWriter}'s (batches written once per tick), the preface's
 * frames and checks are in `socket-preface.ts`.
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
import { announcedCreditWindow, FrameType } from "@nearwire/core/protocol";
import { checkSend, isSendableType } from "@nearwire/core/transport-kit";
import { decodeGoAway, encodeFrame, encodeGoAway, FrameDecoder } from "@nearwire/frame";
import type { SocketReader } from "@nearwire/socket";
import { sniffWants } from "@nearwire/socket";
import { BatchWriter } from "./batch-writer.js";
import {
  announcesBatch,
  announcesCreditBytes,
  answerFeatures,
  clientFeatures,
  helloFrame,
  PREFACE_MAX_PAYLOAD_BYTES,
  prefaceError,
  prefaceTimeoutError,
  readHello,
  transportMismatch,
} from "./socket-preface.js";

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
  /**
   * The byte window to announce (PROTOCOL.md §4.1, §5.4), or undefined for none. A server
   * announces it only in answer to a client's features field.
   */
  creditWindowBytes?: number | undefined;
  /** Peer description for logs. */
  peer: string;
  /** Server side: the peer read on accept (`SO_PEERCRED`), handed to handlers as `ctx.peer`. */
  peerCredentials?: Peer;
  /**
   * The reader the socket was made with (`onread: reader.onread`, or `adoptAccepted`): reads
   * then go into a reused buffer, or straight into a large frame's own buffer, instead of a new
   * buffer per read, and frames that lay whole in a read are delivered transient (see
   * `Channel.transientPayloads`). Without it the channel reads the socket's `data` events.
   */
  reader?: SocketReader;
}

type State = "preface" | "open" | "closed";

/**
 * A Channel over a `net.Socket`. Create with {@link SocketChannel.connect} (client) or
 * {@link SocketChannel.accept} (server); both resolve once the preface has completed.
 */
export class SocketChannel implements Channel {
  readonly peer: string;
  readonly peerCredentials: Peer | undefined;
  readonly #socket: net.Socket;
  readonly #options: SocketChannelOptions;
  readonly #role: "client" | "server";
  readonly #decoder: FrameDecoder;
  readonly #writer: BatchWriter;
  #state: State = "preface";
  /** The peer's first bytes until they can be judged (`sniffWants`, transport mismatch); then undefined. */
  #head: Buffer | undefined = Buffer.alloc(0);
  #peerMaxFrameBytes = 0;
  #acceptsBatches = false;
  #peerAcceptsBatches = false;
  #peerCreditsBytes = false;
  #peerCreditWindowBytes: number | undefined;
  #creditWindowBytes: number | undefined;
  #handler: ChannelHandler | undefined;
  #userPaused = false;
  /** Fails the preface after `handshakeTimeoutMs`; cleared when it completes. */
  #handshakeTimer: NodeJS.Timeout | undefined;
  /** Destroys the socket when the peer has not closed its side a while after ours. */
  #lingerTimer: NodeJS.Timeout | undefined;
  #frameTimer: NodeJS.Timeout | undefined;
  /** The decoder's `partialStarts` when #frameTimer was armed. */
  #frameSeq = 0;
  /** Set once the channel has ended: `null` for a clean close, else the error. */
  #closeResult: NearwireError | null | undefined;
  #notified = false;
  #ready: { resolve: () => void; reject: (err: NearwireError) => void };
  readonly #readyPromise: Promise<void>;
  readonly #socketClosed: Promise<void>;
  /** The frame being delivered is a view of the shared read buffer (reader mode). */
  #frameTransient = false;
  /** The view of a frame's buffer handed out as the next read's target, if any. */
  #readTarget: Uint8Array | undefined;

  private constructor(
    socket: net.Socket,
    role: "client" | "server",
    options: SocketChannelOptions,
  ) {
    this.#socket = socket;
    this.#role = role;
    this.#options = options;
    this.#writer = new BatchWriter(socket, options.highWaterMarkBytes);
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
      onFrame: (type, payload, transient) => {
        this.#frameTransient = transient;
        this.#onFrame(type, payload);
      },
    });
    if (options.reader === undefined) socket.on("data", (chunk: Buffer) => this.#onData(chunk));
    else options.reader.attach(this.#readSink);
    socket.on("error", (err) => this.#peerGone(NearwireError.from(err, Code.Unavailable)));
    socket.on("close", () => {
      this.#peerGone(undefined);
      this.#writer.wakeWaiters();
    });
    this.#handshakeTimer = setTimeout(() => this.#handshakeTimeout(), options.handshakeTimeoutMs);
    if (role === "client") {
      this.#acceptsBatches = options.batches;
      this.#creditWindowBytes = options.creditWindowBytes;
      const window = options.creditWindowBytes !== undefined;
      socket.write(
        helloFrame(
          options.maxFrameBytes,
          clientFeatures(options.batches, window),
          options.creditWindowBytes,
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

  /**
   * True while a frame that lay whole in one read of the shared buffer is being delivered (reader
   * mode): it is valid only during `onFrame`. Frames that spanned reads have buffers of their own.
   */
  get transientPayloads(): boolean {
    return this.#frameTransient;
  }

  /** Gives a delivered frame's buffer back to the decoder, for a later large frame. */
  reclaim(payload: Uint8Array): void {
    this.#decoder.reclaim(payload);
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

  get peerCreditsBytes(): boolean {
    return this.#peerCreditsBytes;
  }

  get peerCreditWindowBytes(): number | undefined {
    return this.#peerCreditWindowBytes;
  }

  get creditWindowBytes(): number | undefined {
    return this.#creditWindowBytes;
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
    checkSend(this.#state !== "open", type, payload.length, this.maxPayloadBytes, this.peer);
    return this.#writer.send(type, payload);
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
    return this.#writer.sendWith(type, fill, this.maxPayloadBytes);
  }

  get backpressured(): boolean {
    return this.#writer.backpressured;
  }

  async drained(): Promise<void> {
    const writer = this.#writer;
    while (this.#state === "open" && writer.backpressured) {
      writer.flush();
      if (this.#socket.writableLength === 0) return;
      // The next completed write (or the close) wakes us.
      await writer.written();
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
    this.#clearTimers();
    this.#writer.flush();
    this.#socket.end();
    // Keep reading (and discarding) so that the peer's FIN is seen and the socket closes.
    this.#socket.resume();
    this.#lingerTimer = setTimeout(() => this.#socket.destroy(), this.#options.closeTimeoutMs);
    process.nextTick(() => this.#notify());
    return this.#socketClosed;
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

  /** Reader mode: reads land in a large frame's own buffer or the shared one. */
  readonly #readSink = {
    readTarget: (): Uint8Array | undefined => {
      this.#readTarget = this.#state === "open" ? this.#decoder.payloadTarget() : undefined;
      return this.#readTarget;
    },
    readSmall: (): boolean => this.#decoder.smallReadAhead,
    onRead: (buf: Uint8Array, n: number): boolean => {
      if (buf === this.#readTarget) {
        this.#readTarget = undefined;
        if (this.#state === "open") this.#decoder.filled(n);
        return true;
      }
      if (this.#state === "open") this.#onBytes(buf.subarray(0, n), true);
      // The preface holds what it reads (the peer's first bytes, frames after HELLO): a copy.
      else this.#onData(Buffer.from(buf.subarray(0, n)));
      return true;
    },
  };

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
      const mismatch = transportMismatch(head, this.#role, this.peer);
      if (mismatch !== undefined) {
        this.#fail(mismatch.error, mismatch.tell, mismatch.farewell);
        return;
      }
      data = head;
    }
    // A plain Uint8Array view of the chunk: the frames cut from it are then made by the
    // built-in TypedArray subarray, not Buffer's slower species constructor.
    this.#onBytes(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), false);
  }

  /** Decodes received bytes; `transient`: a view of the shared read buffer. */
  #onBytes(bytes: Uint8Array, transient: boolean): void {
    try {
      this.#decoder.push(bytes, transient);
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
    const error = NearwireError.from(err, Code.Internal);
    // Whatever goes wrong before the preface completes means the peer does not speak nearwire.
    this.#fail(this.#state === "preface" ? prefaceError(error, this.peer) : error, true);
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
    this.#onHello(type, payload);
  }

  /** The preface's first frame: the peer's HELLO (answered by a server) opens the channel. */
  #onHello(type: number, payload: Uint8Array): void {
    const hello = readHello(type, payload);
    this.#peerMaxFrameBytes = hello.maxFrameBytes;
    this.#peerAcceptsBatches = announcesBatch(hello.features);
    this.#peerCreditsBytes = announcesCreditBytes(hello.features);
    this.#peerCreditWindowBytes = announcedCreditWindow(hello.features, hello.creditWindowBytes);
    if (this.#role === "server") {
      this.#decoder.setMaxPayloadBytes(this.#options.maxFrameBytes);
      const { batches, creditWindowBytes } = this.#options;
      const features = answerFeatures(hello.features, batches, creditWindowBytes !== undefined);
      if (features !== undefined) {
        this.#acceptsBatches = batches;
        this.#creditWindowBytes = creditWindowBytes;
      }
      this.#socket.write(helloFrame(this.#options.maxFrameBytes, features, creditWindowBytes));
    }
    this.#clearTimers();
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
    this.#handshakeTimer = undefined;
    if (this.#state !== "preface") return;
    this.#fail(
      prefaceTimeoutError(this.peer, this.#options.handshakeTimeoutMs),
      this.#role === "server",
    );
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
    this.#clearTimers();
    const socket = this.#socket;
    if (tell && socket.writable) {
      // Frames queued before the error go first: GOAWAY is the last frame (PROTOCOL.md §4.3).
      this.#writer.flush();
      socket.write(
        farewell ?? encodeFrame(FrameType.GoAway, encodeGoAway(error.code, error.message)),
      );
      socket.end();
      socket.resume();
      this.#lingerTimer = setTimeout(() => socket.destroy(), GOAWAY_LINGER_MS);
    } else {
      socket.destroy();
    }
    this.#writer.discard();
    if (wasPreface) this.#ready.reject(error);
    else this.#notify();
  }

  /** The socket errored or closed. */
  #peerGone(error: NearwireError | undefined): void {
    if (this.#state === "closed") {
      if (error === undefined) this.#clearTimers();
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

  #clearTimers(): void {
    if (this.#frameTimer !== undefined) {
      clearTimeout(this.#frameTimer);
      this.#frameTimer = undefined;
    }
    if (this.#handshakeTimer !== undefined) {
      clearTimeout(this.#handshakeTimer);
      this.#handshakeTimer = undefined;
    }
    if (this.#lingerTimer !== undefined) {
      clearTimeout(this.#lingerTimer);
      this.#lingerTimer = undefined;
    }
  }
}
