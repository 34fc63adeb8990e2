import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Code, NearwireError } from "@nearwire/core";
import { GOAWAY, goAwayError, goAwayFrame, peerError } from "../src/control-socket.js";

// The control socket's error bodies (src/control-socket.ts): what a peer's GOAWAY or error frame
// can and cannot make this side believe.
describe("shm-ring control socket: error bodies", () => {
  it("a G message carries code, message and reason, and reads back the same", () => {
    const frame = goAwayFrame(new NearwireError(Code.Aborted, "bye", { reason: "server-closing" }));
    assert.equal(frame[0], GOAWAY);
    assert.equal(frame.readUInt16BE(1), frame.length - 3);
    const err = goAwayError(frame.subarray(3));
    assert.equal(err.code, Code.Aborted);
    assert.equal(err.message, "bye");
    assert.equal(err.reason, "server-closing");
  });

  it("a message too long for the u16 length is shortened; the body stays valid", () => {
    const frame = goAwayFrame(new NearwireError(Code.Internal, "x".repeat(70_000)));
    assert.ok(frame.readUInt16BE(1) <= 0xffff);
    assert.equal(frame.readUInt16BE(1), frame.length - 3);
    const err = goAwayError(frame.subarray(3));
    assert.equal(err.code, Code.Internal);
    assert.match(err.message, /^x+…$/);
  });

  it("malformed JSON is INTERNAL protocol-violation", () => {
    const err = goAwayError(Buffer.from("{nope"));
    assert.equal(err.code, Code.Internal);
    assert.equal(err.reason, "protocol-violation");
  });

  it("an unknown code becomes UNKNOWN; a reason outside the closed set is dropped", () => {
    const err = peerError({ code: 99, message: "m", reason: "made-up" });
    assert.equal(err.code, Code.Unknown);
    assert.equal(err.reason, undefined);
    assert.equal(peerError({ code: 14, reason: "__proto__" }).reason, undefined);
    assert.equal(peerError(null).message, "peer refused the shm-ring handshake");
    assert.equal(peerError({ code: 14, reason: "peer-closed" }).reason, "peer-closed");
  });
});
