/**
 * A plain `Uint8Array` view of the same bytes. A Node `Buffer` has `toJSON`, which the JSON
 * codec would see instead of the bytes, so every byte field is passed through this.
 */
export function plainBytes(bytes: Uint8Array): Uint8Array {
  return Buffer.isBuffer(bytes)
    ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : bytes;
}

const EMPTY = new Uint8Array(0);

/**
 * A decoded byte field as a `Uint8Array`: protobufjs gives an absent `bytes` field its default
 * (an empty array, not a Uint8Array), so absent and empty both read as zero bytes here.
 */
export function decodedBytes(value: Uint8Array | undefined): Uint8Array {
  return value instanceof Uint8Array ? value : EMPTY;
}
