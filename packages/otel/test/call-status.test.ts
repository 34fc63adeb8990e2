import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Code, NearwireError } from "@nearwire/core";
import { codeOf, isSpanError } from "../src/call-status.js";

describe("call status", () => {
  it("a NearwireError's code; UNKNOWN for anything else and for OK", () => {
    assert.equal(codeOf(new NearwireError(Code.NotFound, "x")), Code.NotFound);
    assert.equal(codeOf(new NearwireError(Code.OK, "x")), Code.Unknown);
    assert.equal(codeOf(new Error("x")), Code.Unknown);
    assert.equal(codeOf(undefined), Code.Unknown);
  });

  it("client: every non-OK code is an error; server: only the server's own failures", () => {
    const codes = Object.values(Code).filter((c): c is Code => typeof c === "number");
    assert.equal(codes.length, 17);
    assert.deepEqual(
      codes.filter((c) => isSpanError("client", c)),
      codes.filter((c) => c !== Code.OK),
    );
    assert.deepEqual(
      codes.filter((c) => isSpanError("server", c)),
      [
        Code.Unknown,
        Code.DeadlineExceeded,
        Code.Unimplemented,
        Code.Internal,
        Code.Unavailable,
        Code.DataLoss,
      ],
    );
  });
});
