/**
 * Cuts a byte stream into chunks of exactly `chunkBytes` (the last one may be shorter). Pieces
 * at least that long are sliced without copying; only small pieces are gathered into a new
 * buffer. Strings are taken as UTF-8. Yielded chunks must not be modified by the source later.
 */
export async function* rechunk(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  chunkBytes: number,
): AsyncGenerator<Uint8Array> {
  let buf: Uint8Array | undefined;
  let fill = 0;
  for await (const piece of source) {
    let p: Uint8Array = typeof piece === "string" ? Buffer.from(piece) : piece;
    while (p.byteLength > 0) {
      if (fill === 0 && p.byteLength >= chunkBytes) {
        yield p.subarray(0, chunkBytes);
        p = p.subarray(chunkBytes);
        continue;
      }
      buf ??= new Uint8Array(chunkBytes);
      const n = Math.min(chunkBytes - fill, p.byteLength);
      buf.set(p.subarray(0, n), fill);
      fill += n;
      p = p.subarray(n);
      if (fill === chunkBytes) {
        yield buf;
        buf = undefined;
        fill = 0;
      }
    }
  }
  if (buf !== undefined && fill > 0) yield buf.subarray(0, fill);
}
