import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { field, hex, readVectors, type Vector } from "@nearwire/conformance";
import { readHeader, segmentBytesFor, writeHeader } from "../src/ring-layout.js";

describe("PROTOCOL.md §6.2 nonce", () => {
  it("matches the shm-nonce vector: 16 hex digits as one u64, stored little-endian at 40", () => {
    const v = readVectors().get("shm-nonce") as Vector;
    const nonce = field(v, "nonce");
    const ring = 4096;
    const buf = new SharedArrayBuffer(segmentBytesFor(ring));
    writeHeader(buf, ring, nonce);
    assert.deepEqual(new Uint8Array(buf, 40, 8), hex(v, "bytes"));
    assert.equal(readHeader(buf).nonce, nonce);
  });
});
