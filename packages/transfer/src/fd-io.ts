import { read, write } from "node:fs";

/*
 * Reads and writes of a transfer's file on the descriptor of its open FileHandle, with callbacks:
 * no promise, where `FileHandle.read`/`write` in a loop make seven or eight per call (and two
 * small native buffers each). The FileHandle stays open meanwhile; it is closed only
 * after the call settled.
 */

/**
 * Writes all of `data` at `pos` of the open file `fd`; `done` is called once, with the error
 * or null, never before this returns.
 */
export function writeAll(
  fd: number,
  data: Uint8Array,
  pos: number,
  done: (err: NodeJS.ErrnoException | null) => void,
): void {
  let written = 0;
  const next = (): void =>
    write(fd, data, written, data.byteLength - written, pos + written, (err, n) => {
      if (err !== null) return done(err);
      written += n;
      if (written < data.byteLength) next();
      else done(null);
    });
  next();
}

/**
 * Reads `bytes` at `pos` of the open file `fd` into `into` from 0; `done` is called once, with
 * the error or the count (fewer at the end of the file), never before this returns.
 */
export function readUpTo(
  fd: number,
  into: Uint8Array,
  pos: number,
  bytes: number,
  done: (err: NodeJS.ErrnoException | null, n: number) => void,
): void {
  let got = 0;
  const next = (): void =>
    read(fd, into, got, bytes - got, pos + got, (err, n) => {
      if (err !== null) return done(err, got);
      got += n;
      if (n > 0 && got < bytes) next();
      else done(null, got);
    });
  if (bytes > 0) next();
  else process.nextTick(done, null, 0);
}
