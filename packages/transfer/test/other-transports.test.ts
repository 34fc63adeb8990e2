import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { Transport } from "@nearwire/core";
import { createGrpcTransport } from "@nearwire/grpc-uds";
import { createShmRingTransport } from "@nearwire/shm-ring";
import { transferCodec } from "../src/codecs/index.js";
import { createTransferClient, createTransferHandlers, TransferService } from "../src/index.js";
import { randomFile, sha256, tmpDir } from "./support/rig.js";

describe("the same service on shm-ring and grpc-uds", () => {
  const tmp = tmpDir();
  after(() => tmp.cleanup());
  const transports: [string, (address: string) => Transport, string][] = [
    ["shm-ring", (address) => createShmRingTransport({ address }), "flatbuffers"],
    ["grpc-uds", (address) => createGrpcTransport({ address }), "protobuf"],
  ];
  for (const [name, make, codecName] of transports) {
    it(`${name} (${codecName}): upload and download are byte-identical`, async () => {
      const root = join(tmp.dir, `root-${name}`);
      mkdirSync(root);
      const transport = make(join(tmp.dir, `${name}.sock`));
      const codec = transferCodec(codecName);
      const server = transport.createServer();
      server.addService(TransferService, createTransferHandlers({ root }), { codec });
      await server.listen();
      const connection = await transport.connect();
      try {
        // 16 KiB chunks fit the shm-ring's default message limit.
        const client = createTransferClient({ connection, codec, chunkBytes: 16 * 1024 });
        const src = join(tmp.dir, `${name}.src`);
        const hex = randomFile(src, 3 * 1024 * 1024 + 3);
        assert.equal((await client.upload(src, "f.bin")).sha256, hex);
        const dest = join(tmp.dir, `${name}.dest`);
        assert.equal((await client.download("f.bin", dest)).sha256, hex);
        assert.equal(sha256(dest), hex);
      } finally {
        await connection.close();
        await server.close({ graceMs: 100 });
      }
    });
  }
});
