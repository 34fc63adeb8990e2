/**
 * gRPC's Length-Prefixed-Message on a stream's DATA (gRPC over HTTP/2, "Requests"):
 *
 * ```
 * offset  size  field
 * 0       1     Compressed-Flag: 0 = as is, 1 = compressed with the stream's grpc-encoding
 * 1       4     Message-Length: unsigned big-endian
 * 5       n     Message
 * ```
 *
 * A message may span DATA frames, and a frame may hold several messages.
 */
import { Code, NearwireError } from "@nearwire/core";

/** Size of the prefix, bytes. */
export const MESSAGE_PREFIX_BYTES = 5;

/** Receives one message: its compressed flag and bytes (a view the receiver may keep). */
export type MessageSink = (compressed: boolean, bytes: Uint8Array) => void;

/**
 * Cuts messages out of DATA payloads. A message inside one payload is a view of it (no copy);
 * one that spans payloads is copied once into a buffer of its own size. A length over
 * `maxMessageBytes` throws RESOURCE_EXHAUSTED `message-too-large` before anything is buffered.
 */
export class MessageReader {
  readonly #maxBytes: number;
  readonly #what: string;
  readonly #head = new Uint8Array(MESSAGE_PREFIX_BYTES);
  #headFill = 0;
  #body: Uint8Array | undefined;
  #bodyFill = 0;
  #compressed = false;

  constructor(maxMessageBytes: number, what: string) {
    this.#maxBytes = maxMessageBytes;
    this.#what = what;
  }

  /** True when a message has begun and not ended (the stream must not end here). */
  get partial(): boolean {
    return this.#headFill > 0 || this.#body !== undefined;
  }

  push(data: Uint8Array, sink: MessageSink): void {
    let pos = 0;
    const n = data.byteLength;
    while (pos < n) {
      const body = this.#body;
      if (body !== undefined) {
        const take = Math.min(body.byteLength - this.#bodyFill, n - pos);
        body.set(data.subarray(pos, pos + take), this.#bodyFill);
        this.#bodyFill += take;
        pos += take;
        if (this.#bodyFill === body.byteLength) {
          this.#body = undefined;
          sink(this.#compressed, body);
        }
        continue;
      }
      if (this.#headFill === 0 && n - pos >= MESSAGE_PREFIX_BYTES) {
        // The common case: the prefix is whole in this payload.
        const flag = data[pos] as number;
        const length =
          (((data[pos + 1] as number) << 24) |
            ((data[pos + 2] as number) << 16) |
            ((data[pos + 3] as number) << 8) |
            (data[pos + 4] as number)) >>>
          0;
        pos += MESSAGE_PREFIX_BYTES;
        this.#checkHead(flag, length);
        if (n - pos >= length) {
          sink(flag === 1, data.subarray(pos, pos + length));
          pos += length;
        } else {
          this.#startBody(flag, length);
        }
        continue;
      }
      const head = this.#head;
      while (this.#headFill < MESSAGE_PREFIX_BYTES && pos < n)
        head[this.#headFill++] = data[pos++] as number;
      if (this.#headFill < MESSAGE_PREFIX_BYTES) return;
      this.#headFill = 0;
      const length =
        (((head[1] as number) << 24) |
          ((head[2] as number) << 16) |
          ((head[3] as number) << 8) |
          (head[4] as number)) >>>
        0;
      this.#checkHead(head[0] as number, length);
      this.#startBody(head[0] as number, length);
      if (length === 0) {
        this.#body = undefined;
        sink(this.#compressed, new Uint8Array(0));
      }
    }
  }

  #startBody(flag: number, length: number): void {
    this.#compressed = flag === 1;
    this.#body = new Uint8Array(length);
    this.#bodyFill = 0;
  }

  #checkHead(flag: number, length: number): void {
    if (flag > 1)
      throw new NearwireError(
        Code.Internal,
        `${this.#what} has compressed flag ${flag} (only 0 or 1)`,
        {
          reason: "protocol-violation",
        },
      );
    if (length > this.#maxBytes)
      throw new NearwireError(
        Code.ResourceExhausted,
        `${this.#what} ${length} B > maxMessageBytes ${this.#maxBytes}`,
        {
          reason: "message-too-large",
        },
      );
  }
}
