import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import protobuf from "protobufjs";
import { createProtobufCodec } from "../src/index.js";

const descriptor = createRequire(import.meta.url)("protobufjs/ext/descriptor") as {
  FileDescriptorProto: { decode(bytes: Uint8Array): Record<string, unknown> };
};

test("a reflection root's codec gives its FileDescriptorProtos; static classes give none", () => {
  const { root } = protobuf.parse(`
    syntax = "proto3";
    package demo.v1;
    message Ping { string text = 1; repeated int64 ids = 2; }
    service Pinger { rpc Ping(Ping) returns (Ping); rpc Watch(Ping) returns (stream Ping); }
  `);
  const codec = createProtobufCodec(root);
  const files = codec.fileDescriptorProtos?.() ?? [];
  assert.equal(files.length, 1);
  const file = descriptor.FileDescriptorProto.decode(files[0] as Uint8Array) as {
    name: string;
    package: string;
    messageType: { name: string }[];
    service: { name: string; method: { name: string; serverStreaming: boolean }[] }[];
  };
  assert.equal(file.name, "demo_v1.proto");
  assert.equal(file.package, "demo.v1");
  assert.deepEqual(
    file.messageType.map((m) => m.name),
    ["Ping"],
  );
  assert.deepEqual(
    file.service[0]?.method.map((m) => [m.name, m.serverStreaming === true]),
    [
      ["Ping", false],
      ["Watch", true],
    ],
  );
  const Ping = root.lookupType("demo.v1.Ping");
  assert.equal(createProtobufCodec({ "demo.v1.Ping": Ping }).fileDescriptorProtos, undefined);
});
