import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Code, type MessageType, type NearwireError } from "@nearwire/core";
import { transferCodec } from "../src/codecs/index.js";
import { transferMessages } from "../src/index.js";

const samples = {
  StatusRequest: { name: "a/b.bin" },
  StatusReply: {
    committed: true,
    sizeBytes: 2 ** 53 - 1,
    partialBytes: -1,
    partialSizeBytes: 1234,
    active: false,
  },
  UploadChunk: {
    name: "ü/x",
    sizeBytes: -1,
    offsetBytes: 65536,
    data: new Uint8Array([1, 2, 3]),
    crc32c: 0xffffffff,
    last: true,
    sha256: new Uint8Array(32).fill(9),
  },
  UploadReply: { committed: true, sizeBytes: 3, sha256: new Uint8Array(32).fill(1) },
  DownloadRequest: {
    name: "x",
    offsetBytes: 7,
    prefixSha256: new Uint8Array(32),
    chunkBytes: 4096,
  },
  DownloadChunk: {
    offsetBytes: 0,
    data: new Uint8Array(1000).fill(5),
    crc32c: 12345,
    sizeBytes: 1000,
    last: false,
    sha256: new Uint8Array(0),
  },
} as const;

describe("transfer message codecs", () => {
  for (const name of ["json", "msgpack", "protobuf", "flatbuffers", "raw"]) {
    it(`${name}: every message round-trips`, () => {
      const codec = transferCodec(name);
      for (const [type, value] of Object.entries(samples)) {
        const c = codec.forType<unknown>(
          transferMessages[type as keyof typeof samples] as MessageType<unknown>,
        );
        const back = c.decode(c.encode(value)) as Record<string, unknown>;
        for (const [k, v] of Object.entries(value)) {
          const got = back[k];
          if (v instanceof Uint8Array)
            assert.deepEqual([...(got as Uint8Array)], [...v], `${type}.${k}`);
          else assert.equal(got, v, `${type}.${k}`);
        }
      }
    });
  }

  it("raw: short input, trailing bytes and unknown flag bits are INVALID_ARGUMENT decode-failed", () => {
    const c = transferCodec("raw").forType(transferMessages.UploadChunk);
    const good = c.encode(samples.UploadChunk);
    const bad = [good.subarray(0, good.length - 1), new Uint8Array([...good, 0]), good.slice()];
    (bad[2] as Uint8Array)[20] = 0x80; // flags byte
    for (const b of bad)
      assert.throws(
        () => c.decode(b),
        (err: NearwireError) => err.code === Code.InvalidArgument && err.reason === "decode-failed",
      );
  });

  it("flatbuffers: a truncated or corrupt buffer is INVALID_ARGUMENT decode-failed", () => {
    const c = transferCodec("flatbuffers").forType(transferMessages.DownloadChunk);
    const good = c.encode(samples.DownloadChunk);
    const corrupt = good.slice();
    corrupt[0] = 0xff; // root offset past the end
    for (const b of [good.subarray(0, 6), corrupt])
      assert.throws(
        () => c.decode(b),
        (err: NearwireError) => err.code === Code.InvalidArgument && err.reason === "decode-failed",
      );
  });

  it("an unknown codec name is INVALID_ARGUMENT", () => {
    assert.throws(
      () => transferCodec("xml"),
      (err: NearwireError) => err.code === Code.InvalidArgument,
    );
  });
});
