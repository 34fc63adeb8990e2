/**
 * SocketReader: a socket's reads go into one reused buffer, or straight into the buffer of the
 * large frame being received, instead of a fresh buffer per read.
 */
import net from "node:net";

/** Size of the read buffer every SocketReader of a thread shares (64 KiB, libuv's read size). */
export const READ_BUFFER_BYTES = 64 * 1024;

/** Where a {@link SocketReader} delivers what it reads (a `SocketChannel`). */
export interface ReadSink {
  /**
   * Called after every read: where the next read should go when it is not the shared buffer
   * (a large frame's own buffer), else undefined.
   */
  readTarget(): Uint8Array | undefined;
  /**
   * The next read should be small (the reader's `peekBytes`, e.g. `PEEK_READ_BYTES` of
   * `@nearwire/frame`): a large frame's head is due.
   */
  readSmall(): boolean;
  /**
   * `n` bytes were read into `buf`: the last `readTarget()` or the shared buffer, which is only
   * valid during this call. Returning false stops reading (as `socket.pause()`).
   */
  onRead(buf: Uint8Array, n: number): boolean;
}

let shared: Uint8Array | undefined;

/**
 * The `onread` of a `net.Socket`: Node reads into the buffer this returns (one 64 KiB buffer
 * shared by all sockets of the thread, used only during the read callback) and hands what it
 * read to the attached {@link ReadSink}; a socket read the plain way allocates a new buffer per
 * read (64 KiB, cut to size) instead. Before a sink is attached, reads are kept (copied, up to
 * 1 MiB, then the socket pauses) and delivered when it is.
 *
 * Create the socket with `onread: reader.onread` (`net.connect`, `new net.Socket`), or adopt
 * an accepted one with {@link adoptAccepted}, then pass the reader to the channel
 * (`SocketChannelOptions.reader`).
 */
/** Bytes a reader keeps from reads before its sink is attached (1 MiB); past them it pauses. */
const EARLY_MAX_BYTES = 1024 * 1024;

export class SocketReader {
  #sink: ReadSink | undefined;
  /** Copies of what was read before a sink was attached, and their total. */
  #early: Uint8Array[] | undefined;
  #earlyBytes = 0;
  /** The socket this reader reads for, when it was paused for lack of a sink. */
  #socket: net.Socket | undefined;
  #paused = false;
  readonly #peekBytes: number;
  #peek: Uint8Array | undefined;
  readonly onread: net.OnReadOpts = {
    buffer: () => this.#next(),
    callback: (n: number, buf: Uint8Array) => this.#sink?.onRead(buf, n) ?? this.#keepEarly(buf, n),
  };

  /**
   * `peekBytes`: how much a read takes when the sink asks for a small one (`ReadSink.readSmall`;
   * default the whole shared buffer).
   */
  constructor(options: { peekBytes?: number } = {}) {
    this.#peekBytes = Math.min(options.peekBytes ?? READ_BUFFER_BYTES, READ_BUFFER_BYTES);
  }

  /**
   * Delivers every later read to `sink`, and (in a microtask, before any later read) what was
   * read before it was attached: an accepted socket reads from the moment it is adopted, and a
   * peer check that takes a while (an async `authorize`) must not lose the peer's first bytes.
   */
  attach(sink: ReadSink): void {
    this.#sink = sink;
    const early = this.#early;
    if (early === undefined) return;
    this.#early = undefined;
    this.#earlyBytes = 0;
    queueMicrotask(() => {
      for (const bytes of early) sink.onRead(bytes, bytes.byteLength);
      if (this.#paused) {
        this.#paused = false;
        this.#socket?.resume();
      }
    });
  }

  /** @internal The socket reading through this reader (set by {@link adoptAccepted}). */
  readsFor(socket: net.Socket): void {
    this.#socket = socket;
  }

  /** A read with no sink yet: kept (a copy) up to {@link EARLY_MAX_BYTES}, then the socket pauses. */
  #keepEarly(buf: Uint8Array, n: number): boolean {
    this.#early ??= [];
    this.#early.push(buf.slice(0, n));
    this.#earlyBytes += n;
    if (this.#earlyBytes < EARLY_MAX_BYTES) return true;
    this.#paused = true;
    return false;
  }

  #next(): Uint8Array {
    const target = this.#sink?.readTarget();
    if (target !== undefined) return target;
    shared ??= new Uint8Array(READ_BUFFER_BYTES);
    if (this.#sink?.readSmall() !== true) return shared;
    this.#peek ??= shared.subarray(0, this.#peekBytes);
    return this.#peek;
  }
}

/** The private part of `net.Socket` that {@link adoptAccepted} moves to a new socket. */
interface SocketInternals {
  _handle?: { readStop?: () => number; reading?: boolean } | null;
}

/**
 * A socket that `net.Server` accepted, moved to a new `net.Socket` that reads through `reader`:
 * Node takes `onread` only when a socket is constructed, not from `net.createServer`, so the
 * accepted socket's handle (its file descriptor) goes to a socket made with it and the accepted
 * one is dropped. Call it synchronously in the `connection` listener, before any read. Returns
 * undefined (keep using `socket`) when the socket is not in that state or Node's internals
 * differ; the returned socket is not counted in the server's `connections`.
 */
export function adoptAccepted(socket: net.Socket, reader: SocketReader): net.Socket | undefined {
  const internals = socket as unknown as SocketInternals;
  const handle = internals._handle;
  if (
    handle == null ||
    typeof handle.readStop !== "function" ||
    socket.bytesRead > 0 ||
    socket.readableLength > 0 ||
    socket.destroyed
  )
    return undefined;
  if (handle.readStop() !== 0) return undefined;
  handle.reading = false;
  internals._handle = null;
  socket.destroy();
  const adopted = new net.Socket({
    handle,
    onread: reader.onread,
    readable: true,
    writable: true,
  } as net.SocketConstructorOpts);
  reader.readsFor(adopted);
  return adopted;
}
