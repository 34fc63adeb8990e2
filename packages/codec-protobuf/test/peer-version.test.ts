// protobufjs as a peer dependency: an unsupported version and a second protobufjs install are
// FAILED_PRECONDITION `version-mismatch`, not "illegal buffer" on every decode.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { Code, messageType, NearwireError } from "@nearwire/core";
import protobuf from "protobufjs";
import { createProtobufCodec } from "../src/index.js";
import { checkProtobufjsVersion, inProtobufjsRange } from "../src/protobufjs-peer.js";

const SCHEMA = `syntax = "proto3"; package peer; message Note { string text = 1; }`;
const Note = messageType<{ text: string }>("peer.Note");

function assertVersionMismatch(fn: () => unknown): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof NearwireError);
    assert.equal(err.code, Code.FailedPrecondition);
    assert.equal(err.reason, "version-mismatch");
    return true;
  });
}

test("versions outside ^8.8.1 are refused with FAILED_PRECONDITION version-mismatch", () => {
  for (const v of ["8.8.1", "8.8.2", "8.9.0", "8.10.0-rc.1"]) assert.ok(inProtobufjsRange(v), v);
  for (const v of ["7.5.4", "6.11.4", "8.8.0", "8.0.0", "9.0.0", "", "latest"]) {
    assert.equal(inProtobufjsRange(v), false, v);
    assertVersionMismatch(() => checkProtobufjsVersion(v));
  }
  checkProtobufjsVersion("8.8.1");
});

test("a message type from a second protobufjs install is refused by forType, the codec goes on", () => {
  // A second, independent protobufjs: the same files loaded again with a fresh require cache,
  // as npm's nested copy would be (the one the user's code imports versus the codec's).
  const require = createRequire(import.meta.url);
  const saved = new Map<string, NodeJS.Module>();
  for (const [key, mod] of Object.entries(require.cache))
    if (mod !== undefined && /[\\/]protobufjs[\\/]/.test(key)) {
      saved.set(key, mod);
      delete require.cache[key];
    }
  let other: typeof protobuf;
  try {
    other = require("protobufjs") as typeof protobuf;
  } finally {
    for (const key of Object.keys(require.cache))
      if (/[\\/]protobufjs[\\/]/.test(key)) delete require.cache[key];
    for (const [key, mod] of saved) require.cache[key] = mod;
  }
  assert.notEqual(other.Reader, protobuf.Reader, "a second protobufjs was loaded");

  const foreign = createProtobufCodec(other.parse(SCHEMA).root);
  assertVersionMismatch(() => foreign.forType(Note));
  assertVersionMismatch(() => foreign.forType(Note)); // not cached as a working codec

  // The same schema from the codec's own protobufjs works, before and after.
  const codec = createProtobufCodec(protobuf.parse(SCHEMA).root).forType(Note);
  assert.equal(codec.decode(codec.encode({ text: "same install" })).text, "same install");
});
