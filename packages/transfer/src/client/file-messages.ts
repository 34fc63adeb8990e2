import type { Hash } from "node:crypto";
import { close, open, read } from "node:fs";
import { Code, NearwireError } from "@nearwire/core";
import { crc32c } from "@nearwire/frame";
import { localFsError } from "../local-fs-error.js";
import type { UploadChunk } from "../service.js";

const EMPTY = new Uint8Array(0);

/** What {@link FileMessages} reads and reports. */
export interface FileMessagesOptions {
  path: string;
  name: string;
  /** Declared size (the file's size when the upload began). */
  sizeBytes: number;
  /** The server's confirmed offset: bytes before it are hashed, not sent. */
  resumeAt: number;
  chunkBytes: number;
  /** SHA-256 of every byte read, sent with the last message. */
  hash: Hash;
  progress: (transferredBytes: number) => void;
  /** Set once the file has ended: its size. */
  sent: { totalBytes: number };
}

/** One read of the file: where it started and how many bytes it got. */
interface Read {
  buf: Uint8Array;
  at: number;
  n: number;
}

/**
 * An upload's messages read straight from a file: the one loop of a file upload, with no
 * generator chain and no buffer made per chunk.
 *
 * Three chunk buffers take turns: one is the chunk just handed out (the engine encodes a
 * message into its send buffer before it asks for the next one, so that buffer is free again
 * at the next `next()`), one holds the chunk read ahead (held back until the read after it
 * tells whether it is the last: the last message carries `last` and the whole file's SHA-256),
 * and one is being read into, so the disk works while the previous chunk is sent. A read is a
 * callback `fs.read`; `next()` makes one promise, or returns a settled one when the read came
 * first.
 */
export class FileMessages implements AsyncIterableIterator<UploadChunk> {
  private readonly o: FileMessagesOptions;
  private fd = -1;
  private readonly free: Uint8Array[];
  /** File position of the next read. */
  private pos = 0;
  private first = true;
  /** The chunk read ahead, not yet handed out (undefined before the first read completed). */
  private held: Read | undefined;
  /** The buffer handed out by the last `next()`: free again at the following one. */
  private lent: Uint8Array | undefined;
  private reading = false;
  /** The completed read that `next()` has not yet taken. */
  private done: Read | undefined;
  private failure: Error | undefined;
  /** The pending `next()`, waiting for a read. */
  private waiter: ((r: IteratorResult<UploadChunk>) => void) | undefined;
  private rejecter: ((err: unknown) => void) | undefined;
  private finished = false;
  private opening: Promise<void> | undefined;
  private readonly onRead = (err: NodeJS.ErrnoException | null, n: number): void =>
    this.readDone(err, n);

  constructor(options: FileMessagesOptions) {
    this.o = options;
    this.free = [0, 1, 2].map(() => new Uint8Array(options.chunkBytes));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<UploadChunk>> {
    if (this.lent !== undefined) {
      this.free.push(this.lent);
      this.lent = undefined;
    }
    if (this.finished) return Promise.resolve({ done: true, value: undefined });
    if (this.fd < 0) {
      this.opening ??= this.openFile();
      return this.opening.then(() => this.next());
    }
    if (!this.reading && this.done === undefined && this.failure === undefined) this.startRead();
    const r = this.step();
    if (r !== undefined) return r instanceof Error ? Promise.reject(r) : Promise.resolve(r);
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      this.rejecter = reject;
    });
  }

  return(): Promise<IteratorResult<UploadChunk>> {
    this.finish();
    return Promise.resolve({ done: true, value: undefined });
  }

  private openFile(): Promise<void> {
    return new Promise((resolve, reject) => {
      open(this.o.path, "r", (err, fd) => {
        if (err !== null) {
          this.finished = true;
          reject(localFsError(err, `local file ${JSON.stringify(this.o.path)}`));
          return;
        }
        this.fd = fd;
        resolve();
      });
    });
  }

  private startRead(): void {
    const buf = this.free.pop() as Uint8Array;
    this.reading = true;
    this.done = { buf, at: this.pos, n: 0 };
    read(this.fd, buf, 0, buf.byteLength, this.pos, this.onRead);
  }

  private readDone(err: NodeJS.ErrnoException | null, n: number): void {
    this.reading = false;
    if (err !== null) this.failure = localFsError(err, `local file ${JSON.stringify(this.o.path)}`);
    else {
      (this.done as Read).n = n;
      this.pos += n;
    }
    if (this.finished) {
      this.closeFd();
      return;
    }
    const waiter = this.waiter;
    if (waiter === undefined) return;
    const r = this.step();
    if (r === undefined) return; // another read is needed: the waiter stays
    const rejecter = this.rejecter as (err: unknown) => void;
    this.waiter = undefined;
    this.rejecter = undefined;
    if (r instanceof Error) rejecter(r);
    else waiter(r);
  }

  /**
   * Takes completed reads until a message can be handed out (or an error ends the upload);
   * undefined while a read is still needed (started here). No promise: `next()` makes the one.
   */
  private step(): IteratorResult<UploadChunk> | Error | undefined {
    for (;;) {
      if (this.failure !== undefined) {
        const err = this.failure;
        this.finish();
        return err;
      }
      const got = this.done;
      if (got === undefined || this.reading) return undefined;
      this.done = undefined;
      const o = this.o;
      if (got.n === 0) {
        // End of file: the held chunk (or an empty one) is the last message.
        this.free.push(got.buf);
        return this.last();
      }
      o.hash.update(got.buf.subarray(0, got.n));
      const held = this.held;
      // A chunk wholly before the confirmed offset is only hashed.
      if (got.at + got.n <= o.resumeAt) this.free.push(got.buf);
      else this.held = got;
      this.startRead();
      if (held !== undefined) {
        this.lent = held.buf;
        const m = this.message(held, false);
        o.progress(held.at + held.n);
        return { done: false, value: m };
      }
    }
  }

  /** The last message: the held chunk, or an empty one at the end. */
  private last(): IteratorResult<UploadChunk> | Error {
    const o = this.o;
    o.sent.totalBytes = this.pos;
    if (this.pos < o.resumeAt)
      return new NearwireError(
        Code.FailedPrecondition,
        `source ended at ${this.pos} B, before the confirmed ${o.resumeAt} B`,
      );
    const held = this.held ?? { buf: EMPTY, at: this.pos, n: 0 };
    this.held = undefined;
    const m = this.message(held, true);
    this.finish();
    o.progress(this.pos);
    return { done: false, value: m };
  }

  private message(r: Read, last: boolean): UploadChunk {
    const o = this.o;
    const skip = Math.max(0, o.resumeAt - r.at);
    const data = r.buf.subarray(skip, r.n);
    const m: UploadChunk = {
      name: this.first ? o.name : "",
      sizeBytes: this.first ? o.sizeBytes : -1,
      offsetBytes: r.at + skip,
      data,
      crc32c: crc32c(data),
      last,
      sha256: last ? new Uint8Array(o.hash.digest()) : EMPTY,
    };
    this.first = false;
    return m;
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (!this.reading) this.closeFd();
  }

  private closeFd(): void {
    if (this.fd < 0) return;
    close(this.fd, () => {});
    this.fd = -1;
  }
}
