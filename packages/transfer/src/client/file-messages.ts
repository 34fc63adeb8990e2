import type { Hash } from "node:crypto";
import { close, open, read } from "node:fs";
import { Code, NearwireError, nextNow, whenReady } from "@nearwire/core";
import { crc32c } from "@nearwire/frame";
import { giveIoBuffer, IO_BUFFER_BYTES, READ_BLOCK_BYTES, takeIoBuffer } from "../io-buffers.js";
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
 * The file is read in blocks of whole chunks ({@link READ_BLOCK_BYTES}), each into one of the
 * process's pooled I/O buffers (a buffer of this upload when a chunk is larger): a read per
 * 64 KiB chunk cost far more, most of it in the kernel. A message is a view of its block. A
 * block is read into again only after its last chunk went out and the engine asked for the next
 * message (it encodes a message into its send buffer before it asks for the next one), and the
 * next block is read while this one's chunks go out: two blocks per upload, three when a block
 * is one chunk (one handed out, one read ahead, one being read). The last chunk of a block is
 * held back until the next read tells whether it is the file's last: the last message carries
 * `last` and the whole file's SHA-256. A read is a callback `fs.read`. Core's pump takes a
 * message that is at hand through `[nextNow]()`, and waits for a read in flight through
 * `[whenReady]()`, with no promise; `next()` (opening the file) makes one.
 */
export class FileMessages implements AsyncIterableIterator<UploadChunk> {
  private readonly o: FileMessagesOptions;
  private fd = -1;
  /** Bytes per block: whole chunks. */
  private readonly blockBytes: number;
  /** Blocks are pooled I/O buffers (else buffers of this upload, kept in `spare`). */
  private readonly pooled: boolean;
  private readonly spare: Uint8Array[] = [];
  /** Most blocks taken at once, and how many are taken now. */
  private readonly maxBlocks: number;
  private taken = 0;
  /** File position of the next read. */
  private pos = 0;
  private first = true;
  /** The block whose chunks are being handed out, and where its next chunk starts. */
  private cur: Read | undefined;
  private off = 0;
  /** The block of the last message when that was its block's last chunk: free at `next()`. */
  private lent: Read | undefined;
  private reading = false;
  /** The read in flight, or the completed one that `step()` has not yet taken. */
  private done: Read | undefined;
  private failure: Error | undefined;
  /** The pending `next()`, waiting for a read. */
  private waiter: ((r: IteratorResult<UploadChunk>) => void) | undefined;
  private rejecter: ((err: unknown) => void) | undefined;
  /** The pump's `[whenReady]()` callback, waiting for a read. */
  private wake: (() => void) | undefined;
  private finished = false;
  private opening: Promise<void> | undefined;
  private readonly onRead = (err: NodeJS.ErrnoException | null, n: number): void =>
    this.readDone(err, n);

  constructor(options: FileMessagesOptions) {
    this.o = options;
    const chunk = options.chunkBytes;
    this.pooled = chunk <= IO_BUFFER_BYTES;
    this.blockBytes = this.pooled
      ? chunk * Math.max(1, Math.floor(READ_BLOCK_BYTES / chunk))
      : chunk;
    this.maxBlocks = this.blockBytes > chunk ? 2 : 3;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * The next message when it is at hand (core's pump asks here before `next()`): undefined when
   * the file is not open yet or a read is still needed (started here), and a read error throws.
   */
  [nextNow](): IteratorResult<UploadChunk> | undefined {
    this.giveLent();
    if (this.finished) return { done: true, value: undefined };
    if (this.fd < 0) return undefined;
    this.readAhead();
    const r = this.step();
    if (r instanceof Error) throw r;
    return r;
  }

  /**
   * Waits for the read in flight with a callback (see core's `whenReady`); false before the
   * file is open (`next()` opens it) and when no read is in flight.
   */
  [whenReady](wake: () => void): boolean {
    if (this.fd < 0 || this.finished || !this.reading) return false;
    this.wake = wake;
    return true;
  }

  /** `[nextNow]()` as a promise; when nothing is at hand, the file is opened or read first. */
  next(): Promise<IteratorResult<UploadChunk>> {
    let now: IteratorResult<UploadChunk> | undefined;
    try {
      now = this[nextNow]();
    } catch (err) {
      return Promise.reject(err);
    }
    if (now !== undefined) return Promise.resolve(now);
    if (this.fd < 0) {
      this.opening ??= this.openFile();
      return this.opening.then(() => this.next());
    }
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      this.rejecter = reject;
    });
  }

  return(): Promise<IteratorResult<UploadChunk>> {
    this.giveLent();
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

  private take(): Uint8Array {
    this.taken++;
    if (this.pooled) return takeIoBuffer();
    return this.spare.pop() ?? new Uint8Array(this.blockBytes);
  }

  private give(r: Read | undefined): void {
    if (r === undefined) return;
    this.taken--;
    if (this.pooled) giveIoBuffer(r.buf);
    else this.spare.push(r.buf);
  }

  private giveLent(): void {
    this.give(this.lent);
    this.lent = undefined;
  }

  /** Starts the next read when none is in flight or waiting and a block is free. */
  private readAhead(): void {
    if (this.reading || this.done !== undefined || this.failure !== undefined) return;
    if (this.finished || this.taken >= this.maxBlocks) return;
    const buf = this.take();
    this.reading = true;
    this.done = { buf, at: this.pos, n: 0 };
    read(this.fd, buf, 0, this.blockBytes, this.pos, this.onRead);
  }

  private readDone(err: NodeJS.ErrnoException | null, n: number): void {
    this.reading = false;
    if (err !== null) this.failure = localFsError(err, `local file ${JSON.stringify(this.o.path)}`);
    else {
      (this.done as Read).n = n;
      this.pos += n;
    }
    if (this.finished) {
      this.give(this.done);
      this.done = undefined;
      this.closeFd();
      return;
    }
    const wake = this.wake;
    if (wake !== undefined) {
      this.wake = undefined;
      wake(); // the pump takes what is now at hand through [nextNow]()
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
   * Hands out the next chunk, taking completed reads as needed (or an error ends the upload);
   * undefined while a read is still needed (started here). No promise: `next()` makes the one.
   */
  private step(): IteratorResult<UploadChunk> | Error | undefined {
    const o = this.o;
    for (;;) {
      if (this.failure !== undefined) {
        const err = this.failure;
        this.finish();
        return err;
      }
      const cur = this.cur;
      const from = this.off;
      const end =
        cur === undefined ? 0 : Math.min(cur.n, from - (from % o.chunkBytes) + o.chunkBytes);
      if (cur !== undefined && end < cur.n) {
        this.off = end; // not its block's last chunk: out at once
        return { done: false, value: this.message(cur, from, end, false) };
      }
      // Its block's last chunk, or no block yet: the next read tells what comes after it.
      this.readAhead();
      const got = this.done;
      if (got === undefined || this.reading) return undefined;
      this.done = undefined;
      if (got.n === 0) {
        this.give(got); // end of file: the held chunk (or an empty one) is the last message
        return this.last();
      }
      o.hash.update(got.buf.subarray(0, got.n));
      if (got.at + got.n <= o.resumeAt) {
        this.give(got); // wholly before the confirmed offset: only hashed
        continue;
      }
      this.cur = got;
      this.off = Math.max(0, o.resumeAt - got.at);
      if (cur === undefined) continue;
      this.lent = cur;
      this.readAhead();
      return { done: false, value: this.message(cur, from, end, false) };
    }
  }

  /** The last message: the rest of the block being handed out, or an empty one at the end. */
  private last(): IteratorResult<UploadChunk> | Error {
    const o = this.o;
    o.sent.totalBytes = this.pos;
    if (this.pos < o.resumeAt)
      return new NearwireError(
        Code.FailedPrecondition,
        `source ended at ${this.pos} B, before the confirmed ${o.resumeAt} B`,
      );
    const cur = this.cur ?? { buf: EMPTY, at: this.pos, n: 0 };
    const m = this.message(cur, this.off, cur.n, true);
    if (this.cur !== undefined) this.lent = this.cur;
    this.cur = undefined;
    this.finish();
    return { done: false, value: m };
  }

  /** The message of `r`'s bytes `from … end`; reports the progress up to its end. */
  private message(r: Read, from: number, end: number, last: boolean): UploadChunk {
    const o = this.o;
    const data = r.buf.subarray(from, end);
    const m: UploadChunk = {
      name: this.first ? o.name : "",
      sizeBytes: this.first ? o.sizeBytes : -1,
      offsetBytes: r.at + from,
      data,
      crc32c: crc32c(data),
      last,
      sha256: last ? new Uint8Array(o.hash.digest()) : EMPTY,
    };
    this.first = false;
    o.progress(r.at + end);
    return m;
  }

  /** Ends the upload's reading: gives back every block but the one of the last message. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.give(this.cur);
    this.cur = undefined;
    if (this.reading) return; // its callback gives the block back and closes the file
    this.give(this.done);
    this.done = undefined;
    this.closeFd();
  }

  private closeFd(): void {
    if (this.fd < 0) return;
    close(this.fd, () => {});
    this.fd = -1;
  }
}
