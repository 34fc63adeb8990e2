/**
 * Thrown on a malformed header block or a limit. The HTTP/2 layer turns it into a connection
 * error COMPRESSION_ERROR, or, for `reason: "header-list-too-large"`, a stream error / 431.
 *
 * - `"malformed"`: bad encoding (index 0 or past the table, truncated or oversized integer or
 *   string, bad Huffman code, size update after a field).
 * - `"table-size"`: a dynamic table size update above our SETTINGS_HEADER_TABLE_SIZE.
 * - `"header-list-too-large"`: the decoded list exceeds `maxHeaderListBytes`; the decoder stays
 *   usable.
 */
export class HpackError extends Error {
  override name = "HpackError";
  constructor(
    readonly reason: "malformed" | "header-list-too-large" | "table-size",
    message: string,
  ) {
    super(message);
  }
}
