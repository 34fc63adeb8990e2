import { read, write } from "node:fs";

/*
 * Reads and writes of a transfer's file on the descriptor of its open FileHandle, with callbacks:
 * one promise per call, where `FileHandle.read`/`write` in a loop make seven or eight per call
 * (and two small native buffers each). The FileHandle stays open meanwhile; it is closed only
 * after the call settled.
 */

/** Writes all of `data` at `pos` of the open file `fd`. */
export function writeAll(fd: number, data: Uint8Array, pos: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = 0;
    const next = (): void =>
      write(fd, data, done, data.byteLength - done, pos + done, (err, n) => {
        if (err !== null) {
          reject(err);
          return;
        }
        done += n;
        if (done < data.byteLength) next();
        else resolve();
      });
    next();
  });
}

/** Reads `bytes` at `pos` of the open file `fd` into `into` from 0; resolves with the count (fewer at the end of the file). */
export function readUpTo(
  fd: number,
  into: Uint8Array,
  pos: number,
  bytes: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let got = 0;
    const next = (): void =>
      read(fd, into, got, bytes - got, pos + got, (err, n) => {
        if (err !== null) {
          reject(err);
          return;
        }
        got += n;
        if (n > 0 && got < bytes) next();
        else resolve(got);
      });
    if (bytes > 0) next();
    else resolve(0);
  });
}
