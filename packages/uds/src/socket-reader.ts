/**
 * SocketReader: a socket's reads go into one reused buffer, or straight into the buffer of the
 * large frame being received, instead of a fresh buffer per read.
 */
import net from "node:net";
import { PEEK_READ_BYTES } from "@nearwire/frame";

/** Size of the read buffer every SocketReader of a thread shares (64 KiB, libuv's read size). */
export const READ_BUFFER_BYTES = 64 * 1024;

/** Where a {@link SocketReader} delivers what it reads (a `SocketChannel`). */
export interface ReadSink {
  /**
   * Called after every read: where the next read should go when it is not the shared buffer
   * (a large frame's own buffer), else undefined.
   */
  readTarget(): Uint8Array | undefined;
  /** The next read should be small (`PEEK_READ_BYTES` of `@nearwire/frame`): a large frame's head is due. */
  readSmall(): boolean;
  /**
   * `n` bytes were read into `buf`: the last `readTarget()` or the shared buffer, which is only
   * valid during this call. Returning false stops reading (as `socket.pause()`).
   */
  onRead(buf: Uint8Array, n: number): boolean;
}

let shared: Uint8Array | undefined;
let peek: Uint8Array | undefined;

/**
 * The `onread` of a `net.Socket`: Node reads into the buffer this returns (one 64 KiB buffer
 * shared by all sockets of the thread, used only during the read callback) and hands what it
 * read to the attached {@link ReadSink}; a socket read the plain way allocates a new buffer per
 * read (64 KiB, cut to size) instead. Before a sink is attached, reads are discarded.
 *
 * Create the socket with `onread: reader.onread` (`net.connect`, `new net.Socket`), or adopt
 * an accepted one with {@link adoptAccepted}, then pass the reader to the channel
 * (`SocketChannelOptions.reader`).
 */
export class SocketReader {
  #sink: ReadSink | undefined;
  readonly onread: net.OnReadOpts = {
    buffer: () => this.#next(),
    callback: (n: number, buf: Uint8Array) => this.#sink?.onRead(buf, n) ?? true,
  };

  /** Delivers every later read to `sink`. */
  attach(sink: ReadSink): void {
    this.#sink = sink;
  }

  #next(): Uint8Array {
    const target = this.#sink?.readTarget();
    if (target !== undefined) return target;
    if (shared === undefined) {
      shared = new Uint8Array(READ_BUFFER_BYTES);
      peek = shared.subarray(0, PEEK_READ_BYTES);
    }
    return this.#sink?.readSmall() === true ? (peek as Uint8Array) : shared;
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
  return new net.Socket({
    handle,
    onread: reader.onread,
    readable: true,
    writable: true,
  } as net.SocketConstructorOpts);
}
